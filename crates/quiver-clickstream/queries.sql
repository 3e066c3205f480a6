-- The web-analytics workload over `hits` (see src/queries.rs for the
-- macros and the per-engine override lines). Our own queries: ClickBench's
-- texts are not copied. Parameters (site 13, the most popular site; user
-- 8321939486138122805, the most active user) follow from the generator.

-- name: count_all
SELECT COUNT(*) FROM hits;

-- name: count_adv
SELECT COUNT(*) FROM hits WHERE adv_engine_id <> 0;

-- name: sum_count_avg
SELECT SUM(adv_engine_id), COUNT(*), AVG(resolution_width) FROM hits;

-- name: avg_user_id
SELECT AVG(user_id) FROM hits;

-- name: distinct_users
SELECT COUNT(DISTINCT user_id) FROM hits;

-- name: distinct_phrases
SELECT COUNT(DISTINCT {ci:search_phrase}) FROM hits;

-- name: min_max_date
SELECT MIN(event_date), MAX(event_date) FROM hits;

-- name: adv_engines
SELECT adv_engine_id, COUNT(*) AS c FROM hits WHERE adv_engine_id <> 0 GROUP BY adv_engine_id ORDER BY c DESC, adv_engine_id;

-- name: region_users
SELECT region_id, COUNT(DISTINCT user_id) AS u FROM hits GROUP BY region_id ORDER BY u DESC, region_id LIMIT 10;

-- name: region_mixed
SELECT region_id, SUM(adv_engine_id), COUNT(*) AS c, AVG(resolution_width), COUNT(DISTINCT user_id) FROM hits GROUP BY region_id ORDER BY c DESC, region_id LIMIT 10;

-- name: model_users
-- compare: folded
SELECT {ci:mobile_model} AS m, COUNT(DISTINCT user_id) AS u FROM hits WHERE mobile_model <> '' GROUP BY {ci:mobile_model} ORDER BY u DESC, m LIMIT 10;

-- name: os_model_users
-- compare: folded
SELECT os_id, {ci:mobile_model} AS m, COUNT(DISTINCT user_id) AS u FROM hits WHERE mobile_model <> '' GROUP BY os_id, {ci:mobile_model} ORDER BY u DESC, os_id, m LIMIT 10;

-- name: top_phrases
-- compare: folded
SELECT {ci:search_phrase} AS p, COUNT(*) AS c FROM hits WHERE search_phrase <> '' GROUP BY {ci:search_phrase} ORDER BY c DESC, p LIMIT 10;

-- name: phrase_users
-- compare: folded
SELECT {ci:search_phrase} AS p, COUNT(DISTINCT user_id) AS u FROM hits WHERE search_phrase <> '' GROUP BY {ci:search_phrase} ORDER BY u DESC, p LIMIT 10;

-- name: engine_phrases
-- compare: folded
SELECT search_engine_id, {ci:search_phrase} AS p, COUNT(*) AS c FROM hits WHERE search_phrase <> '' GROUP BY search_engine_id, {ci:search_phrase} ORDER BY c DESC, search_engine_id, p LIMIT 10;

-- name: top_users
SELECT user_id, COUNT(*) AS c FROM hits GROUP BY user_id ORDER BY c DESC, user_id LIMIT 10;

-- name: user_phrase_top
-- compare: folded
SELECT user_id, {ci:search_phrase} AS p, COUNT(*) AS c FROM hits GROUP BY user_id, {ci:search_phrase} ORDER BY c DESC, user_id, p LIMIT 10;

-- name: user_phrase_groups
SELECT COUNT(*) FROM (SELECT user_id, {ci:search_phrase} AS p FROM hits GROUP BY user_id, {ci:search_phrase}) AS g;

-- name: user_minute_phrase
-- compare: folded
SELECT user_id, {minute:event_time} AS m, {ci:search_phrase} AS p, COUNT(*) AS c FROM hits GROUP BY user_id, {minute:event_time}, {ci:search_phrase} ORDER BY c DESC, user_id, m, p LIMIT 10;

-- name: user_lookup
SELECT COUNT(*), MIN(event_time), MAX(event_time) FROM hits WHERE user_id = 8321939486138122805;

-- name: url_like_count
SELECT COUNT(*) FROM hits WHERE url LIKE '%/gul%';

-- name: url_like_phrases
-- compare: folded
SELECT {ci:search_phrase} AS p, MIN(url), COUNT(*) AS c FROM hits WHERE url LIKE '%.ru/%' AND search_phrase <> '' GROUP BY {ci:search_phrase} ORDER BY c DESC, p LIMIT 10;

-- name: title_like
SELECT COUNT(*), COUNT(DISTINCT user_id) FROM hits WHERE {ci:title} LIKE '%сисякыкы%';

-- name: phrase_like
SELECT COUNT(*) FROM hits WHERE {ci:search_phrase} LIKE '%foxuzome%';

-- name: wide_like_top
SELECT * FROM hits WHERE url LIKE '%/gul%' ORDER BY event_time, event_id LIMIT 10;

-- name: wide_top_duration
SELECT * FROM hits ORDER BY duration_s DESC, event_id LIMIT 10;

-- name: phrases_by_time
-- compare: folded
SELECT {ci:search_phrase} AS p FROM hits WHERE search_phrase <> '' ORDER BY event_time, event_id LIMIT 10;

-- name: phrases_sorted
-- compare: folded
SELECT {ci:search_phrase} AS p FROM hits WHERE search_phrase <> '' ORDER BY p LIMIT 10;

-- name: url_length_by_site
SELECT site_id, AVG({chars:url}) AS l, COUNT(*) AS c FROM hits WHERE url <> '' GROUP BY site_id HAVING COUNT(*) > 100 ORDER BY l DESC, site_id LIMIT 25;

-- name: referer_domains
-- duckdb: SELECT regexp_replace(referer, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k, AVG(length(referer)) AS l, COUNT(*) AS c, MIN(referer) FROM hits WHERE referer <> '' GROUP BY k HAVING COUNT(*) > 100 ORDER BY l DESC, k LIMIT 25
-- datafusion: SELECT regexp_replace(referer, '^https?://(?:www\.)?([^/]+)/.*$', '${1}') AS k, AVG(character_length(referer)) AS l, COUNT(*) AS c, MIN(referer) FROM hits WHERE referer <> '' GROUP BY regexp_replace(referer, '^https?://(?:www\.)?([^/]+)/.*$', '${1}') HAVING COUNT(*) > 100 ORDER BY l DESC, k LIMIT 25
-- chdb: SELECT replaceRegexpOne(referer, '^https?://(?:www\\.)?([^/]+)/.*$', '\\1') AS k, AVG(lengthUTF8(referer)) AS l, COUNT(*) AS c, MIN(referer) FROM hits WHERE referer <> '' GROUP BY k HAVING COUNT(*) > 100 ORDER BY l DESC, k LIMIT 25
SELECT REGEXP_REPLACE(referer, '^https?://(?:www\\.)?([^/]+)/.*$', '\\1') AS k, AVG(CHAR_LENGTH(referer)) AS l, COUNT(*) AS c, MIN(referer) FROM hits WHERE referer <> '' GROUP BY k HAVING COUNT(*) > 100 ORDER BY l DESC, k LIMIT 25;

-- name: wide_sums
SELECT SUM(resolution_width), SUM(resolution_width + 1), SUM(resolution_width + 2), SUM(resolution_width + 3), SUM(resolution_width + 4), SUM(resolution_width + 5), SUM(resolution_width + 6), SUM(resolution_width + 7), SUM(resolution_width + 8), SUM(resolution_width + 9), SUM(resolution_width + 10), SUM(resolution_width + 11), SUM(resolution_width + 12), SUM(resolution_width + 13), SUM(resolution_width + 14), SUM(resolution_width + 15), SUM(resolution_width + 16), SUM(resolution_width + 17), SUM(resolution_width + 18), SUM(resolution_width + 19), SUM(resolution_width + 20), SUM(resolution_width + 21), SUM(resolution_width + 22), SUM(resolution_width + 23), SUM(resolution_width + 24), SUM(resolution_width + 25), SUM(resolution_width + 26), SUM(resolution_width + 27), SUM(resolution_width + 28), SUM(resolution_width + 29), SUM(resolution_width + 30), SUM(resolution_width + 31), SUM(resolution_width + 32), SUM(resolution_width + 33), SUM(resolution_width + 34), SUM(resolution_width + 35), SUM(resolution_width + 36), SUM(resolution_width + 37), SUM(resolution_width + 38), SUM(resolution_width + 39), SUM(resolution_width + 40), SUM(resolution_width + 41), SUM(resolution_width + 42), SUM(resolution_width + 43), SUM(resolution_width + 44), SUM(resolution_width + 45), SUM(resolution_width + 46), SUM(resolution_width + 47), SUM(resolution_width + 48), SUM(resolution_width + 49), SUM(resolution_width + 50), SUM(resolution_width + 51), SUM(resolution_width + 52), SUM(resolution_width + 53), SUM(resolution_width + 54), SUM(resolution_width + 55), SUM(resolution_width + 56), SUM(resolution_width + 57), SUM(resolution_width + 58), SUM(resolution_width + 59), SUM(resolution_width + 60), SUM(resolution_width + 61), SUM(resolution_width + 62), SUM(resolution_width + 63), SUM(resolution_width + 64), SUM(resolution_width + 65), SUM(resolution_width + 66), SUM(resolution_width + 67), SUM(resolution_width + 68), SUM(resolution_width + 69), SUM(resolution_width + 70), SUM(resolution_width + 71), SUM(resolution_width + 72), SUM(resolution_width + 73), SUM(resolution_width + 74), SUM(resolution_width + 75), SUM(resolution_width + 76), SUM(resolution_width + 77), SUM(resolution_width + 78), SUM(resolution_width + 79), SUM(resolution_width + 80), SUM(resolution_width + 81), SUM(resolution_width + 82), SUM(resolution_width + 83), SUM(resolution_width + 84), SUM(resolution_width + 85), SUM(resolution_width + 86), SUM(resolution_width + 87), SUM(resolution_width + 88), SUM(resolution_width + 89) FROM hits;

-- name: engine_ip_groups
SELECT search_engine_id, client_ip, COUNT(*) AS c, SUM(is_refresh), AVG(resolution_width) FROM hits WHERE search_phrase <> '' GROUP BY search_engine_id, client_ip ORDER BY c DESC, search_engine_id, client_ip LIMIT 10;

-- name: session_ip_groups
SELECT session_id, client_ip, COUNT(*) AS c, SUM(is_refresh), AVG(resolution_width) FROM hits GROUP BY session_id, client_ip ORDER BY c DESC, session_id, client_ip LIMIT 10;

-- name: top_urls
SELECT url, COUNT(*) AS c FROM hits GROUP BY url ORDER BY c DESC, url LIMIT 10;

-- name: site_urls
SELECT url, COUNT(*) AS views FROM hits WHERE site_id = 13 AND event_date BETWEEN '2025-07-01' AND '2025-07-31' AND dont_count = 0 AND is_refresh = 0 AND url <> '' GROUP BY url ORDER BY views DESC, url LIMIT 10;

-- name: site_titles
-- compare: folded
SELECT {ci:title} AS t, COUNT(*) AS views FROM hits WHERE site_id = 13 AND event_date BETWEEN '2025-07-01' AND '2025-07-31' AND dont_count = 0 AND is_refresh = 0 AND title <> '' GROUP BY {ci:title} ORDER BY views DESC, t LIMIT 10;

-- name: site_links
SELECT url, COUNT(*) AS views FROM hits WHERE site_id = 13 AND is_link <> 0 AND is_download = 0 GROUP BY url ORDER BY views DESC, url LIMIT 10 OFFSET 100;

-- name: site_sources
SELECT traffic_source, search_engine_id, adv_engine_id, COUNT(*) AS views FROM hits WHERE site_id = 13 AND is_refresh = 0 GROUP BY traffic_source, search_engine_id, adv_engine_id ORDER BY views DESC, traffic_source, search_engine_id, adv_engine_id LIMIT 10 OFFSET 5;

-- name: site_hours
SELECT {hour_text:event_time} AS h, COUNT(*) AS views FROM hits WHERE site_id = 13 AND is_refresh = 0 GROUP BY {hour_text:event_time} ORDER BY h LIMIT 30;

-- name: site_minutes
SELECT {hour:local_time} AS hh, {minute:local_time} AS mm, COUNT(*) AS views FROM hits WHERE site_id = 13 AND dont_count = 0 GROUP BY {hour:local_time}, {minute:local_time} ORDER BY views DESC, hh, mm LIMIT 10;

-- name: daily_users
SELECT event_date, COUNT(*) AS views, COUNT(DISTINCT user_id) AS users FROM hits GROUP BY event_date ORDER BY event_date;

-- name: campaign_revenue
-- compare: folded
SELECT {ci:utm_campaign} AS k, COUNT(*) AS c, SUM(revenue_cents) AS r FROM hits GROUP BY {ci:utm_campaign} ORDER BY c DESC, k LIMIT 10;

-- name: site_distinct_urls
SELECT site_id, COUNT(DISTINCT url) AS u FROM hits GROUP BY site_id ORDER BY u DESC, site_id LIMIT 10;

-- name: timing_by_browser
SELECT browser_id, COUNT(*) AS c, AVG(page_load_ms) AS load_ms, MAX(dns_ms), SUM(duration_s) FROM hits WHERE is_mobile = 0 GROUP BY browser_id ORDER BY c DESC, browser_id LIMIT 10;

-- name: language_country
-- compare: folded
SELECT {ci:browser_language} AS l, {ci:country} AS k, COUNT(DISTINCT user_id) AS u FROM hits GROUP BY {ci:browser_language}, {ci:country} ORDER BY u DESC, l, k LIMIT 10;
