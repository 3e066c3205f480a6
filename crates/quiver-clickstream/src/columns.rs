//! The `hits` table: one row per page view, 100 columns, as a web-analytics
//! system logs them. Each column is a name, a MySQL type and a rule that
//! makes its value from the row number ([`Rule`]).
//!
//! The shape is what stresses an analytical engine: a few popular sites and
//! pages and many rare ones (power laws), about a million users at 10M rows,
//! search phrases and titles mostly in Cyrillic and CJK with case and
//! trailing-space variants under `utf8mb4_general_ci`, URLs with their own
//! binary collation, and many narrow numeric columns that a `SELECT *` has
//! to carry.

use crate::random::{hash, mix, unit, zipf};
use crate::vocabulary::{ascii_word, phrase, spelling_variant, title, PHRASES};

/// Sites, and pages per site.
pub const SITES: u64 = 2_000;
pub const PAGES_PER_SITE: u64 = 20_000;
/// Share of page views (in percent) that come from a search.
const SEARCH_PERCENT: u64 = 12;
const MOBILE_PERCENT: u64 = 35;

/// 2025-07-01 00:00:00 in seconds since 1970; the log spans 31 days.
pub const START_SECONDS: i64 = 1_751_328_000;
pub const SPAN_SECONDS: i64 = 31 * 86_400;

/// The MySQL type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Date,
    DateTime,
    /// VARCHAR(n) under a collation.
    Varchar(u16, &'static str),
}

impl SqlType {
    pub fn ddl(self) -> String {
        match self {
            SqlType::TinyInt => "TINYINT".into(),
            SqlType::SmallInt => "SMALLINT".into(),
            SqlType::Int => "INT".into(),
            SqlType::BigInt => "BIGINT".into(),
            SqlType::Date => "DATE".into(),
            SqlType::DateTime => "DATETIME".into(),
            SqlType::Varchar(n, coll) => {
                format!("VARCHAR({n}) CHARACTER SET utf8mb4 COLLATE {coll}")
            }
        }
    }
}

const CI: &str = "utf8mb4_general_ci";
const BIN: &str = "utf8mb4_bin";

/// How a column's value follows from the row.
#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// A unique id, scrambled.
    EventId,
    EventTime,
    /// event_time shifted by the visitor's time zone.
    LocalTime,
    EventDate,
    SiteId,
    UserId,
    SessionId,
    Url,
    Referer,
    Title,
    SearchPhrase,
    SearchEngine,
    /// The advertising engine: 0 on 97 % of rows.
    AdvEngine,
    RegionId,
    IsMobile,
    MobileModel,
    UrlHash,
    RefererHash,
    ClientIp,
    ResolutionWidth,
    ResolutionHeight,
    TimezoneMinutes,
    /// Cents of revenue, 0 on 98 % of rows.
    Revenue,
    /// 1 on `percent` % of rows, else 0.
    Flag(u64),
    /// A power-law rank in [0, n).
    Ranked(u64),
    /// Uniform in [lo, hi].
    Uniform(i64, i64),
    /// A duration in ms around a median, from a quarter of it to 4 times it.
    Timing(i64),
    /// One of the texts, power-law distributed.
    Choice(&'static [&'static str]),
    /// One of the texts on `percent` % of rows, else NULL.
    Sometimes(u64, &'static [&'static str]),
}

pub struct Column {
    pub name: &'static str,
    pub sql_type: SqlType,
    pub rule: Rule,
}

const fn col(name: &'static str, sql_type: SqlType, rule: Rule) -> Column {
    Column {
        name,
        sql_type,
        rule,
    }
}

use Rule::*;
use SqlType::*;

const COUNTRIES: &[&str] = &[
    "RU", "CN", "US", "DE", "KZ", "BY", "UA", "TR", "FR", "GB", "JP", "IN", "BR", "PL", "NL",
];
const LANGUAGES: &[&str] = &["ru", "zh", "en", "de", "kk", "tr", "fr", "ja", "pl", "uk"];
const BROWSER_VERSIONS: &[&str] = &[
    "124.0", "123.0", "17.4", "125.0", "122.0", "16.6", "121.0", "115.0", "109.0", "99.0",
];
const SOCIAL: &[&str] = &[
    "", "vk", "telegram", "wechat", "x", "facebook", "ok", "weibo",
];
const SOCIAL_ACTIONS: &[&str] = &["", "share", "like", "comment", "follow"];
const UTM_SOURCES: &[&str] = &["newsletter", "yandex", "google", "vk", "partner", "baidu"];
const UTM_MEDIUMS: &[&str] = &["cpc", "email", "social", "banner", "referral"];
const UTM_CAMPAIGNS: &[&str] = &[
    "summer_sale",
    "распродажа_лето",
    "新品上市",
    "black_friday",
    "back_to_school",
    "новый_год",
];
const UTM_CONTENT: &[&str] = &["header", "sidebar", "footer", "inline", "popup"];
const UTM_TERMS: &[&str] = &["купить", "скидка", "便宜", "cheap", "review", "отзывы"];
const CURRENCIES: &[&str] = &["RUB", "CNY", "USD", "EUR", "KZT"];
const HIT_COLORS: &[&str] = &["F", "D", "E"];
const ORDER_IDS: &[&str] = &["", "ORD-1001", "ORD-2002", "ORD-3003", "ORD-4004"];

/// The 100 columns of `hits`, in table order.
pub static COLUMNS: &[Column] = &[
    col("event_id", BigInt, EventId),
    col("event_time", DateTime, EventTime),
    col("event_date", Date, EventDate),
    col("site_id", Int, SiteId),
    col("user_id", BigInt, UserId),
    col("session_id", BigInt, SessionId),
    col("url", Varchar(1024, BIN), Url),
    col("referer", Varchar(1024, BIN), Referer),
    col("title", Varchar(512, CI), Title),
    col("search_phrase", Varchar(512, CI), SearchPhrase),
    col("search_engine_id", SmallInt, SearchEngine),
    col("adv_engine_id", SmallInt, AdvEngine),
    col("region_id", Int, RegionId),
    col("country", Varchar(2, CI), Choice(COUNTRIES)),
    col("is_mobile", TinyInt, IsMobile),
    col("mobile_model", Varchar(64, CI), MobileModel),
    col("os_id", SmallInt, Ranked(90)),
    col("browser_id", SmallInt, Ranked(160)),
    col("browser_version", Varchar(16, CI), Choice(BROWSER_VERSIONS)),
    col("resolution_width", SmallInt, ResolutionWidth),
    col("resolution_height", SmallInt, ResolutionHeight),
    col("color_depth", TinyInt, Uniform(3, 5)),
    col("window_width", SmallInt, Uniform(320, 2560)),
    col("window_height", SmallInt, Uniform(480, 1440)),
    col("timezone_minutes", SmallInt, TimezoneMinutes),
    col("local_time", DateTime, LocalTime),
    col("is_refresh", TinyInt, Flag(9)),
    col("dont_count", TinyInt, Flag(4)),
    col("is_link", TinyInt, Flag(3)),
    col("is_download", TinyInt, Flag(1)),
    col("is_not_bounce", TinyInt, Flag(60)),
    col("traffic_source", SmallInt, Uniform(-1, 8)),
    col("client_ip", Int, ClientIp),
    col("url_hash", BigInt, UrlHash),
    col("referer_hash", BigInt, RefererHash),
    col("dns_ms", Int, Timing(20)),
    col("connect_ms", Int, Timing(40)),
    col("response_start_ms", Int, Timing(120)),
    col("response_end_ms", Int, Timing(200)),
    col("dom_ready_ms", Int, Timing(600)),
    col("page_load_ms", Int, Timing(1200)),
    col("duration_s", Int, Timing(45)),
    col("social_network", Varchar(32, CI), Choice(SOCIAL)),
    col("social_action", Varchar(32, CI), Choice(SOCIAL_ACTIONS)),
    col("utm_source", Varchar(64, CI), Sometimes(15, UTM_SOURCES)),
    col("utm_medium", Varchar(64, CI), Sometimes(15, UTM_MEDIUMS)),
    col(
        "utm_campaign",
        Varchar(128, CI),
        Sometimes(12, UTM_CAMPAIGNS),
    ),
    col("utm_content", Varchar(128, CI), Sometimes(8, UTM_CONTENT)),
    col("utm_term", Varchar(128, CI), Sometimes(6, UTM_TERMS)),
    col("has_gclid", TinyInt, Flag(5)),
    col("browser_language", Varchar(8, CI), Choice(LANGUAGES)),
    col("browser_country", Varchar(8, CI), Choice(COUNTRIES)),
    col("goals_reached", SmallInt, Ranked(5)),
    col("revenue_cents", BigInt, Revenue),
    col("currency", Varchar(3, CI), Choice(CURRENCIES)),
    col("java_enabled", TinyInt, Flag(20)),
    col("cookie_enabled", TinyInt, Flag(97)),
    col("javascript_enabled", TinyInt, Flag(99)),
    col("code_version", Int, Ranked(400)),
    col("hit_color", Varchar(1, CI), Choice(HIT_COLORS)),
    col("age", TinyInt, Uniform(0, 90)),
    col("sex", TinyInt, Uniform(0, 2)),
    col("income", TinyInt, Uniform(0, 4)),
    col("interests", SmallInt, Uniform(0, 1000)),
    col("robotness", TinyInt, Flag(2)),
    col("landscape", TinyInt, Flag(30)),
    col("param_price", BigInt, Revenue),
    col("param_order_id", Varchar(32, CI), Choice(ORDER_IDS)),
    col("param_currency_id", SmallInt, Ranked(20)),
    col("ab_test_group", TinyInt, Uniform(0, 9)),
    col("metric_01", Int, Uniform(0, 1_000_000)),
    col("metric_02", SmallInt, Ranked(1000)),
    col("metric_03", TinyInt, Flag(50)),
    col("metric_04", Int, Uniform(0, 1_000_000)),
    col("metric_05", SmallInt, Ranked(1000)),
    col("metric_06", TinyInt, Flag(50)),
    col("metric_07", Int, Uniform(0, 1_000_000)),
    col("metric_08", SmallInt, Ranked(1000)),
    col("metric_09", TinyInt, Flag(50)),
    col("metric_10", Int, Uniform(0, 1_000_000)),
    col("metric_11", SmallInt, Ranked(1000)),
    col("metric_12", TinyInt, Flag(50)),
    col("metric_13", Int, Uniform(0, 1_000_000)),
    col("metric_14", SmallInt, Ranked(1000)),
    col("metric_15", TinyInt, Flag(50)),
    col("metric_16", Int, Uniform(0, 1_000_000)),
    col("metric_17", SmallInt, Ranked(1000)),
    col("metric_18", TinyInt, Flag(50)),
    col("metric_19", Int, Uniform(0, 1_000_000)),
    col("metric_20", SmallInt, Ranked(1000)),
    col("metric_21", TinyInt, Flag(50)),
    col("metric_22", Int, Uniform(0, 1_000_000)),
    col("metric_23", SmallInt, Ranked(1000)),
    col("metric_24", TinyInt, Flag(50)),
    col("metric_25", Int, Uniform(0, 1_000_000)),
    col("metric_26", SmallInt, Ranked(1000)),
    col("metric_27", TinyInt, Flag(50)),
    col("metric_28", Int, Uniform(0, 1_000_000)),
    col("metric_29", SmallInt, Ranked(1000)),
    col("metric_30", TinyInt, Flag(50)),
];

/// Whether the column may hold NULL.
pub fn nullable(rule: Rule) -> bool {
    matches!(rule, Sometimes(..))
}

/// The `CREATE TABLE` statement of `hits`.
pub fn create_table_sql(table: &str) -> String {
    let cols: Vec<String> = COLUMNS
        .iter()
        .map(|c| {
            let null = if nullable(c.rule) { "NULL" } else { "NOT NULL" };
            format!("  {} {} {null}", c.name, c.sql_type.ddl())
        })
        .collect();
    format!("CREATE TABLE {table} (\n{}\n)", cols.join(",\n"))
}

/// What every column of one row derives from, drawn once per row.
pub struct Visit {
    pub row: u64,
    pub seconds: i64,
    pub site: u64,
    pub page: u64,
    pub user: u64,
    /// The search phrase the visit came from, if any.
    pub phrase: Option<u64>,
    pub mobile: bool,
}

impl Visit {
    pub fn new(row: u64, rows: u64) -> Visit {
        // Logs arrive roughly in time order: the row's slot plus up to ten
        // minutes of jitter.
        let slot = (row as i128 * SPAN_SECONDS as i128 / rows.max(1) as i128) as i64;
        let seconds = START_SECONDS + slot + (hash(row, 1) % 600) as i64;
        let searched = hash(row, 5) % 100 < SEARCH_PERCENT;
        Visit {
            row,
            seconds,
            site: zipf(hash(row, 2), SITES),
            page: zipf(hash(row, 4), PAGES_PER_SITE),
            user: zipf(hash(row, 3), (rows / 6).max(10)),
            phrase: searched.then(|| zipf(hash(row, 6), PHRASES)),
            mobile: hash(row, 7) % 100 < MOBILE_PERCENT,
        }
    }

    pub fn page_key(&self) -> u64 {
        self.site * PAGES_PER_SITE + self.page
    }

    /// The site's id: distinct per site, scattered over 1..100003.
    pub fn site_id(&self) -> i64 {
        ((self.site * 7919 + 13) % 100_003) as i64
    }

    pub fn user_id(&self) -> i64 {
        (mix(self.user ^ 0x0005_E5E5) >> 1) as i64
    }

    pub fn search_engine(&self) -> i64 {
        match self.phrase {
            Some(_) => 1 + zipf(hash(self.row, 10), 20) as i64,
            None => 0,
        }
    }

    pub fn domain(site: u64, out: &mut String) {
        out.push_str("www.");
        ascii_word(site, out);
        out.push_str(&site.to_string());
        const TLDS: [&str; 6] = [".ru", ".com", ".cn", ".net", ".org", ".de"];
        out.push_str(TLDS[(mix(site) % 6) as usize]);
    }

    pub fn url(&self, out: &mut String) {
        out.push_str("https://");
        Self::domain(self.site, out);
        out.push('/');
        ascii_word(self.site * 40 + self.page % 40, out);
        out.push('/');
        out.push_str(&self.page.to_string());
        out.push_str(".html");
        // A third of search landings keep the query in the URL, unescaped.
        if let Some(p) = self.phrase {
            if hash(self.row, 11).is_multiple_of(3) {
                out.push_str("?q=");
                phrase(p, out);
            }
        }
    }

    pub fn referer(&self, out: &mut String) {
        let x = hash(self.row, 9) % 100;
        if let Some(p) = self.phrase {
            out.push_str("https://search");
            out.push_str(&self.search_engine().to_string());
            out.push_str(".example/?text=");
            phrase(p, out);
        } else if x >= 40 {
            let other = zipf(hash(self.row, 12), SITES);
            out.push_str(if x.is_multiple_of(2) {
                "https://"
            } else {
                "http://"
            });
            Self::domain(other, out);
            out.push('/');
            out.push_str(&zipf(hash(self.row, 13), PAGES_PER_SITE).to_string());
            out.push_str(".html");
        }
    }

    pub fn title(&self, out: &mut String) {
        title(self.page_key(), out);
        spelling_variant(out, hash(self.row, 14));
    }

    pub fn search_phrase(&self, out: &mut String) {
        if let Some(p) = self.phrase {
            phrase(p, out);
            spelling_variant(out, hash(self.row, 15));
        }
    }

    pub fn mobile_model(&self, out: &mut String) {
        const BRANDS: [&str; 7] = [
            "iPhone", "Galaxy", "Redmi", "Pixel", "Honor", "Xperia", "Moto",
        ];
        if self.mobile {
            let m = zipf(hash(self.user, 16), 300);
            out.push_str(BRANDS[(m % 7) as usize]);
            out.push(' ');
            out.push_str(&(m / 7 + 5).to_string());
        }
    }

    pub fn timezone_minutes(&self) -> i64 {
        const ZONES: [i64; 8] = [180, 120, 480, 0, -300, 60, 330, 540];
        ZONES[zipf(hash(self.user, 17), 8) as usize]
    }

    pub fn resolution(&self) -> (i64, i64) {
        const DESKTOP: [(i64, i64); 5] = [
            (1920, 1080),
            (1366, 768),
            (1536, 864),
            (2560, 1440),
            (1440, 900),
        ];
        const PHONE: [(i64, i64); 4] = [(390, 844), (360, 800), (414, 896), (412, 915)];
        let k = zipf(hash(self.user, 18), 5) as usize;
        if self.mobile {
            PHONE[k % 4]
        } else {
            DESKTOP[k]
        }
    }
}

/// FNV-1a of a text, as a positive BIGINT (the url_hash / referer_hash).
pub fn text_hash(s: &str) -> i64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in s.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3);
    }
    (h >> 1) as i64
}

/// A numeric rule's value for `row`, drawn with the column's own `salt`.
pub fn number(rule: Rule, v: &Visit, salt: u64) -> i64 {
    let x = hash(v.row, salt);
    match rule {
        EventId => (mix(v.row ^ 0xE1E1) >> 1) as i64,
        SiteId => v.site_id(),
        UserId => v.user_id(),
        SessionId => (mix(v.user ^ (v.seconds / 1800) as u64) >> 1) as i64,
        SearchEngine => v.search_engine(),
        AdvEngine if x % 100 < 3 => 1 + (x >> 8) as i64 % 30,
        AdvEngine => 0,
        RegionId => 1 + zipf(x, 5000) as i64,
        IsMobile => v.mobile as i64,
        ClientIp => (mix(v.user ^ 0x1919) as u32 as i32) as i64,
        ResolutionWidth => v.resolution().0,
        ResolutionHeight => v.resolution().1,
        TimezoneMinutes => v.timezone_minutes(),
        Revenue if x % 100 < 2 => 100 + zipf(x >> 8, 100_000) as i64 * 17,
        Revenue => 0,
        Flag(percent) => (x % 100 < percent) as i64,
        Ranked(n) => zipf(x, n) as i64,
        Uniform(lo, hi) => lo + (x % (hi - lo + 1) as u64) as i64,
        Timing(median) => {
            let f = 4f64.powf(unit(x) * 2.0 - 1.0);
            (median as f64 * f) as i64
        }
        _ => 0,
    }
}
