//! Parsing with sqlparser's MySQL dialect, plus the MySQL forms it lacks
//! (`a MOD b`, `TRIM(LEADING FROM s)`, the compound INTERVAL units), and
//! sqlparser's errors mapped to MySQL's 1064 with the statement text from
//! the error position.

use std::any::TypeId;

use quiver_common::{QuiverError, Result};
use quiver_plan::DatePart;
use sqlparser::ast::{DateTimeField, Expr, Ident, Interval, Query, SetExpr, Statement};
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// sqlparser's MySQL dialect, with MySQL's own INTERVAL and EXTRACT units.
/// sqlparser reads `INTERVAL v unit` with the SQL standard's units
/// (`YEAR TO MONTH`, `SECOND(p, s)`, plurals) and not MySQL's compound
/// `YEAR_MONTH`, `DAY_HOUR`, ...; this dialect parses both forms itself,
/// each unit being one of MySQL's (a compound one as a custom field), so
/// anything else is a syntax error as in MySQL. Everything else is
/// MySqlDialect's: it reports MySqlDialect's type id, so sqlparser's
/// dialect checks treat it as MySQL.
#[derive(Debug, Default)]
pub(crate) struct QuiverDialect(MySqlDialect);

macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(fn $name(&self, $($arg: $ty),*) -> $ret { self.0.$name($($arg),*) })*
    };
}

impl Dialect for QuiverDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<MySqlDialect>()
    }

    // Every method MySqlDialect overrides (sqlparser 0.63).
    forward! {
        is_identifier_start(ch: char) -> bool;
        is_identifier_part(ch: char) -> bool;
        is_delimited_identifier_start(ch: char) -> bool;
        identifier_quote_style(identifier: &str) -> Option<char>;
        supports_string_literal_backslash_escape() -> bool;
        supports_string_literal_concatenation() -> bool;
        ignores_wildcard_escapes() -> bool;
        supports_numeric_prefix() -> bool;
        supports_bitwise_shift_operators() -> bool;
        supports_multiline_comment_hints() -> bool;
        parse_infix(parser: &mut Parser, expr: &Expr, precedence: u8) -> Option<std::result::Result<Expr, ParserError>>;
        require_interval_qualifier() -> bool;
        supports_limit_comma() -> bool;
        supports_create_table_select() -> bool;
        supports_insert_set() -> bool;
        supports_user_host_grantee() -> bool;
        is_table_factor_alias(explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool;
        supports_table_hints() -> bool;
        requires_single_line_comment_whitespace() -> bool;
        supports_match_against() -> bool;
        supports_select_modifiers() -> bool;
        supports_set_names() -> bool;
        supports_comma_separated_set_assignments() -> bool;
        supports_update_order_by() -> bool;
        supports_data_type_signed_suffix() -> bool;
        supports_cross_join_constraint() -> bool;
        supports_double_ampersand_operator() -> bool;
        supports_binary_kw_as_cast() -> bool;
        supports_comment_optimizer_hint() -> bool;
        supports_constraint_keyword_without_name() -> bool;
        supports_key_column_option() -> bool;
        supports_group_by_with_modifier() -> bool;
        supports_left_associative_joins_without_parens() -> bool;
    }

    fn parse_statement(
        &self,
        parser: &mut Parser,
    ) -> Option<std::result::Result<Statement, ParserError>> {
        reserved_insert_target(parser)
            .or_else(|| parse_set(parser))
            .or_else(|| parse_show_table_status(parser))
            .or_else(|| parse_alter_database(parser))
            .or_else(|| parse_create_schema(parser))
            .or_else(|| parse_prepare(parser))
            .or_else(|| self.0.parse_statement(parser))
    }

    /// MySQL's precedence of the bit operators, which sqlparser ranks as
    /// PostgreSQL does: `|` binds loosest, then `&`, then `<<` `>>`, all
    /// below `+` (30) and `*` (40); `^` binds tighter than `*`, so
    /// `2 ^ 3 * 2` is `(2 ^ 3) * 2`.
    fn get_next_precedence(&self, parser: &Parser) -> Option<std::result::Result<u8, ParserError>> {
        match parser.peek_token_ref().token {
            Token::Ampersand => Some(Ok(22)),
            Token::ShiftLeft | Token::ShiftRight => Some(Ok(23)),
            Token::Caret => Some(Ok(45)),
            _ => None,
        }
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<std::result::Result<Expr, ParserError>> {
        if parser.parse_keyword(Keyword::INTERVAL) {
            return Some(parse_interval(parser));
        }
        // MySQL reserves these words: `... AND AND 2` is an error at the
        // second AND and `SELECT 1, FROM t` one at FROM, not columns named so.
        if let Token::Word(w) = &parser.peek_token_ref().token {
            if w.quote_style.is_none() && NOT_AN_EXPRESSION.contains(&w.keyword) {
                let found = parser.peek_token();
                return Some(parser.expected("an expression", found));
            }
        }
        if parser.peek_keyword(Keyword::EXTRACT)
            && parser.peek_nth_token_ref(1).token == Token::LParen
        {
            parser.next_token();
            return Some(parse_extract(parser));
        }
        self.0.parse_prefix(parser)
    }
}

/// Reserved words of MySQL that never start an expression.
const NOT_AN_EXPRESSION: &[Keyword] = &[
    Keyword::AND,
    Keyword::OR,
    Keyword::XOR,
    Keyword::FROM,
    Keyword::WHERE,
    Keyword::GROUP,
    Keyword::HAVING,
    Keyword::ORDER,
    Keyword::LIMIT,
    Keyword::UNION,
    Keyword::ON,
    Keyword::USING,
    Keyword::JOIN,
    Keyword::INTO,
    Keyword::BY,
    Keyword::AS,
    Keyword::THEN,
    Keyword::ELSE,
];

/// Reserved words of MySQL that sqlparser would take for the table name of
/// an INSERT: `INSERT INTO VALUES (1)` is an error at VALUES.
const NOT_A_TABLE_NAME: &[Keyword] = &[Keyword::VALUES, Keyword::SELECT, Keyword::SET];

/// Error at a reserved word where an INSERT or REPLACE names its table.
fn reserved_insert_target(
    parser: &mut Parser,
) -> Option<std::result::Result<Statement, ParserError>> {
    if !matches!(
        &parser.peek_token_ref().token,
        Token::Word(w) if matches!(w.keyword, Keyword::INSERT | Keyword::REPLACE)
    ) {
        return None;
    }
    let skippable = [
        Keyword::INSERT,
        Keyword::REPLACE,
        Keyword::LOW_PRIORITY,
        Keyword::DELAYED,
        Keyword::HIGH_PRIORITY,
        Keyword::IGNORE,
        Keyword::INTO,
    ];
    let mut n = 0;
    loop {
        match &parser.peek_nth_token_ref(n).token {
            Token::Word(w) if w.quote_style.is_none() && skippable.contains(&w.keyword) => n += 1,
            Token::Word(w) if w.quote_style.is_none() && NOT_A_TABLE_NAME.contains(&w.keyword) => {
                let found = parser.peek_nth_token(n);
                return Some(parser.expected("a table name", found));
            }
            _ => return None,
        }
    }
}

/// `SHOW TABLE STATUS [FROM | IN db] [LIKE 'p' | WHERE expr]`, which
/// sqlparser reads as bare words (and fails at `WHERE Name = 't'`'s `=`).
/// It stays `Statement::ShowVariable` with the words `TABLE STATUS [FROM
/// db]` (spans kept: the engine reads the options again from the text after
/// STATUS); the filter is parsed here only so that a bad one is a syntax
/// error where it is.
fn parse_show_table_status(
    parser: &mut Parser,
) -> Option<std::result::Result<Statement, ParserError>> {
    let is_word = |t: &Token, word: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if !(is_word(&parser.peek_nth_token_ref(0).token, "SHOW")
        && is_word(&parser.peek_nth_token_ref(1).token, "TABLE")
        && is_word(&parser.peek_nth_token_ref(2).token, "STATUS"))
    {
        return None;
    }
    parser.next_token();
    let mut word = || {
        let t = parser.next_token();
        match t.token {
            Token::Word(w) => Ident {
                value: w.value,
                quote_style: None,
                span: t.span,
            },
            _ => Ident::new(""),
        }
    };
    let mut variable = vec![word(), word()];
    Some((|| {
        if let Some(k) = parser.parse_one_of_keywords(&[Keyword::FROM, Keyword::IN]) {
            variable.push(Ident::new(format!("{k:?}")));
            variable.push(parser.parse_identifier()?);
        }
        parser.parse_show_statement_filter()?;
        Ok(Statement::ShowVariable { variable })
    })())
}

/// MySQL's `CREATE SCHEMA`, which is `CREATE DATABASE` with its options
/// (sqlparser's CREATE SCHEMA takes none): a `Statement::CreateDatabase`.
fn parse_create_schema(parser: &mut Parser) -> Option<std::result::Result<Statement, ParserError>> {
    let is_word = |t: &Token, word: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if !(is_word(&parser.peek_nth_token_ref(0).token, "CREATE")
        && is_word(&parser.peek_nth_token_ref(1).token, "SCHEMA"))
    {
        return None;
    }
    parser.next_token();
    parser.next_token();
    Some(parser.parse_create_database())
}

/// MySQL's `PREPARE name FROM {'text' | @var}` and `DROP PREPARE name`.
/// sqlparser has PostgreSQL's `PREPARE name AS statement`; MySQL's becomes
/// a `Statement::Prepare` without data types whose statement is
/// `VALUES (<source>)`: the text (or variable) the statement is read from
/// when it runs. `DROP PREPARE name` is `DEALLOCATE PREPARE name`.
fn parse_prepare(parser: &mut Parser) -> Option<std::result::Result<Statement, ParserError>> {
    let is_word = |t: &Token, word: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if is_word(&parser.peek_nth_token_ref(0).token, "DROP")
        && is_word(&parser.peek_nth_token_ref(1).token, "PREPARE")
    {
        parser.next_token();
        parser.next_token();
        return Some(parser.parse_identifier().map(|name| Statement::Deallocate {
            name,
            prepare: true,
        }));
    }
    if !is_word(&parser.peek_nth_token_ref(0).token, "PREPARE") {
        return None;
    }
    parser.next_token();
    Some((|| {
        let name = parser.parse_identifier()?;
        parser.expect_keyword_is(Keyword::FROM)?;
        let source = parser.parse_expr()?;
        let select = parse_sql_select_of(source);
        Ok(Statement::Prepare {
            name,
            data_types: vec![],
            statement: Box::new(Statement::Query(Box::new(select))),
        })
    })())
}

/// `VALUES (e)` as a query: the one expression a PREPARE reads its text from.
fn parse_sql_select_of(e: Expr) -> Query {
    Query {
        with: None,
        body: Box::new(SetExpr::Values(sqlparser::ast::Values {
            explicit_row: false,
            value_keyword: false,
            rows: vec![sqlparser::ast::Parens {
                opening_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
                content: vec![e],
                closing_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
            }],
        })),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}

/// The option keys of [`parse_alter_database`]'s statement.
pub const DATABASE_CHARSET: &str = "CHARACTER SET";
pub const DATABASE_COLLATE: &str = "COLLATE";

/// MySQL's `ALTER {DATABASE | SCHEMA} [name] option...`, each option
/// `[DEFAULT] {CHARACTER SET | CHARSET} [=] cs` or `[DEFAULT] COLLATE [=] c`,
/// which sqlparser lacks: a `Statement::AlterSchema` (an empty name for the
/// current database) whose one operation lists the options in order, keyed
/// [`DATABASE_CHARSET`] / [`DATABASE_COLLATE`].
fn parse_alter_database(
    parser: &mut Parser,
) -> Option<std::result::Result<Statement, ParserError>> {
    use sqlparser::ast::{AlterSchema, AlterSchemaOperation, ObjectName, SqlOption};
    let is_word = |t: &Token, word: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if !(is_word(&parser.peek_nth_token_ref(0).token, "ALTER")
        && (is_word(&parser.peek_nth_token_ref(1).token, "DATABASE")
            || is_word(&parser.peek_nth_token_ref(1).token, "SCHEMA")))
    {
        return None;
    }
    parser.next_token();
    parser.next_token();
    let starts_option = |p: &Parser| {
        let t = &p.peek_token_ref().token;
        ["DEFAULT", "CHARACTER", "CHARSET", "COLLATE"]
            .iter()
            .any(|w| is_word(t, w))
    };
    Some((|| {
        let name = if starts_option(parser) {
            ObjectName::from(Vec::<Ident>::new())
        } else {
            ObjectName::from(vec![parser.parse_identifier()?])
        };
        let mut options = Vec::new();
        loop {
            let _ = parser.parse_keyword(Keyword::DEFAULT);
            let key = if parser.parse_keywords(&[Keyword::CHARACTER, Keyword::SET])
                || parser.parse_keyword(Keyword::CHARSET)
            {
                DATABASE_CHARSET
            } else if parser.parse_keyword(Keyword::COLLATE) {
                DATABASE_COLLATE
            } else {
                let found = parser.peek_token();
                return parser.expected("CHARACTER SET or COLLATE", found);
            };
            let _ = parser.consume_token(&Token::Eq);
            let value = parse_charset_name(parser)?;
            options.push(SqlOption::KeyValue {
                key: Ident::new(key),
                value: Expr::Identifier(value),
            });
            let t = &parser.peek_token_ref().token;
            if matches!(t, Token::EOF | Token::SemiColon) {
                break;
            }
        }
        Ok(Statement::AlterSchema(AlterSchema {
            name,
            if_exists: false,
            operations: vec![AlterSchemaOperation::SetOptionsParens { options }],
        }))
    })())
}

/// The name a SET assignment of `NAMES cs [COLLATE c]` has: its value is
/// the charset, under `Expr::Collate` when a collation is given (a
/// backquoted `names` is a variable of that name).
pub const SET_NAMES: &str = "NAMES";
/// The name a `SET CHARACTER SET cs` / `SET CHARSET cs` assignment has.
pub const SET_CHARACTER_SET: &str = "CHARACTER SET";

/// MySQL's SET: any number of comma-separated assignments, each of them
/// `[GLOBAL | SESSION | LOCAL] name = expr`, `@@[scope.]name = expr`,
/// `@user = expr` (`:=` for `=` too), `NAMES cs [COLLATE c]` or
/// `CHARACTER SET cs`, as one `Set::MultipleAssignments`. The scope of a
/// `@@global.` / `@@session.` name moves to the assignment's scope.
/// `SET [scope] TRANSACTION ...`, `SET PASSWORD`, `SET ROLE` are left to sqlparser.
fn parse_set(parser: &mut Parser) -> Option<std::result::Result<Statement, ParserError>> {
    if !parser.peek_keyword(Keyword::SET) {
        return None;
    }
    let word = |n: usize| match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.keyword),
        _ => None,
    };
    let mut next = 1;
    if matches!(
        word(1),
        Some(Keyword::GLOBAL | Keyword::SESSION | Keyword::LOCAL)
    ) {
        next = 2;
    }
    if matches!(
        word(next),
        Some(Keyword::TRANSACTION | Keyword::PASSWORD | Keyword::ROLE | Keyword::DEFAULT)
    ) {
        return None;
    }
    parser.next_token();
    let mut assignments = Vec::new();
    let result = (|| loop {
        assignments.push(parse_set_assignment(parser)?);
        if !parser.consume_token(&Token::Comma) {
            return Ok(Statement::Set(sqlparser::ast::Set::MultipleAssignments {
                assignments: std::mem::take(&mut assignments),
            }));
        }
    })();
    Some(result)
}

/// A charset or collation name: a word or a string.
fn parse_charset_name(parser: &mut Parser) -> std::result::Result<Ident, ParserError> {
    let t = parser.next_token();
    match &t.token {
        Token::Word(w) => Ok(Ident::new(w.value.clone())),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(Ident::new(s.clone())),
        _ => parser.expected("a character set name", t),
    }
}

fn parse_set_assignment(
    parser: &mut Parser,
) -> std::result::Result<sqlparser::ast::SetAssignment, ParserError> {
    use sqlparser::ast::{ContextModifier, ObjectName, SetAssignment};
    let ident_value = |i: Ident| Expr::Identifier(i);
    let mut scope =
        match parser.parse_one_of_keywords(&[Keyword::GLOBAL, Keyword::SESSION, Keyword::LOCAL]) {
            Some(Keyword::GLOBAL) => Some(ContextModifier::Global),
            Some(Keyword::SESSION) => Some(ContextModifier::Session),
            Some(Keyword::LOCAL) => Some(ContextModifier::Local),
            _ => None,
        };
    if parser.parse_keyword(Keyword::NAMES) {
        let charset = parse_charset_name(parser)?;
        let value = if parser.parse_keyword(Keyword::COLLATE) {
            let c = parse_charset_name(parser)?;
            Expr::Collate {
                expr: Box::new(ident_value(charset)),
                collation: ObjectName::from(vec![c]),
            }
        } else {
            ident_value(charset)
        };
        return Ok(SetAssignment {
            scope,
            name: ObjectName::from(vec![Ident::new(SET_NAMES)]),
            value,
        });
    }
    if parser.parse_keywords(&[Keyword::CHARACTER, Keyword::SET])
        || parser.parse_keyword(Keyword::CHARSET)
    {
        let charset = parse_charset_name(parser)?;
        return Ok(SetAssignment {
            scope,
            name: ObjectName::from(vec![Ident::new(SET_CHARACTER_SET)]),
            value: ident_value(charset),
        });
    }
    let t = parser.next_token();
    let Token::Word(w) = &t.token else {
        return parser.expected("a variable name", t);
    };
    let mut name = w.clone().into_ident(t.span);
    if w.quote_style.is_none() && w.value.starts_with("@@") {
        // `@@name`, `@@session.name`, `@@global.name`.
        let prefix = w.value[2..].to_ascii_lowercase();
        let prefixed = match prefix.as_str() {
            "global" => Some(ContextModifier::Global),
            "session" => Some(ContextModifier::Session),
            "local" => Some(ContextModifier::Local),
            _ => None,
        };
        if prefixed.is_some() && parser.consume_token(&Token::Period) {
            scope = prefixed;
            name = parser.parse_identifier()?;
        } else {
            name = Ident::new(&w.value[2..]);
            scope = scope.or(Some(ContextModifier::Session));
        }
    }
    if !parser.consume_token(&Token::Eq) && !parser.consume_token(&Token::Assignment) {
        return parser.expected("= or :=", parser.peek_token());
    }
    // ON / OFF / DEFAULT and other bare words stand for themselves.
    let bare = !name.value.starts_with('@')
        && matches!(
            &parser.peek_token_ref().token,
            Token::Word(w) if w.quote_style.is_none()
                && !matches!(w.keyword, Keyword::NULL | Keyword::TRUE | Keyword::FALSE)
        )
        && matches!(
            parser.peek_nth_token_ref(1).token,
            Token::Comma | Token::SemiColon | Token::EOF
        );
    let value = if bare {
        let t = parser.next_token();
        match t.token {
            Token::Word(w) => Expr::Identifier(Ident::new(w.value)),
            _ => unreachable!("peeked a word"),
        }
    } else {
        parser.parse_expr()?
    };
    Ok(SetAssignment {
        scope,
        name: ObjectName::from(vec![name]),
        value,
    })
}

/// `INTERVAL expr unit`, after the INTERVAL keyword.
fn parse_interval(parser: &mut Parser) -> std::result::Result<Expr, ParserError> {
    let value = parser.parse_expr()?;
    let unit = parse_unit(parser)?;
    // `YEAR TO MONTH` is the SQL standard's; MySQL stops at TO (reserved).
    if parser.peek_keyword(Keyword::TO) {
        return parser.expected("end of INTERVAL", parser.peek_token());
    }
    Ok(Expr::Interval(Interval {
        value: Box::new(value),
        leading_field: Some(unit),
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    }))
}

/// `EXTRACT(unit FROM expr)`, after the EXTRACT keyword.
fn parse_extract(parser: &mut Parser) -> std::result::Result<Expr, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let field = parse_unit(parser)?;
    parser.expect_keyword(Keyword::FROM)?;
    let expr = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Extract {
        field,
        syntax: sqlparser::ast::ExtractSyntax::From,
        expr: Box::new(expr),
    })
}

/// One of MySQL's INTERVAL units; a compound one (`DAY_HOUR`) becomes a
/// custom field named as MySQL spells it.
fn parse_unit(parser: &mut Parser) -> std::result::Result<DateTimeField, ParserError> {
    let t = parser.next_token();
    let part = match &t.token {
        Token::Word(w) if w.quote_style.is_none() => DatePart::from_name(&w.value),
        _ => None,
    };
    Ok(match part {
        Some(DatePart::Year) => DateTimeField::Year,
        Some(DatePart::Quarter) => DateTimeField::Quarter,
        Some(DatePart::Month) => DateTimeField::Month,
        Some(DatePart::Week) => DateTimeField::Week(None),
        Some(DatePart::Day) => DateTimeField::Day,
        Some(DatePart::Hour) => DateTimeField::Hour,
        Some(DatePart::Minute) => DateTimeField::Minute,
        Some(DatePart::Second) => DateTimeField::Second,
        Some(DatePart::Microsecond) => DateTimeField::Microsecond,
        Some(p) => DateTimeField::Custom(Ident::with_span(t.span, p.name())),
        None => return parser.expected("an INTERVAL unit", t),
    })
}

/// The tokens of `text` with the same rewrites as statements get.
pub(crate) fn tokenize(text: &str) -> Option<Vec<TokenWithSpan>> {
    let dialect = QuiverDialect::default();
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .ok()?;
    Some(rewrite_tokens(tokens))
}

/// Where the select item `e` is written among `tokens`: the range of its
/// first and last token. sqlparser's span of an expression leaves out
/// leading and trailing keywords and parentheses (`CAST(`, `-`, `(`,
/// `IS NULL`, `INTERVAL`'s unit), so the expression is parsed again from
/// the token at its span's start and from the few before it, until one
/// gives back the same expression; the parser then says where it ended.
pub(crate) fn expr_tokens(tokens: &[TokenWithSpan], e: &Expr) -> Option<(usize, usize)> {
    use sqlparser::ast::Spanned;
    let start = e.span().start;
    let first = tokens.partition_point(|t| t.span.start < start);
    if tokens.get(first)?.span.start != start {
        return None;
    }
    let dialect = QuiverDialect::default();
    let mut from = first;
    for _ in 0..12 {
        // The item ends at the latest at a comma or a parenthesis that
        // closes one opened before it.
        let mut depth = 0usize;
        let end = tokens[from..]
            .iter()
            .position(|t| match &t.token {
                Token::LParen => {
                    depth += 1;
                    false
                }
                Token::RParen if depth > 0 => {
                    depth -= 1;
                    false
                }
                Token::RParen | Token::SemiColon => true,
                Token::Comma => depth == 0,
                _ => false,
            })
            .map_or(tokens.len(), |k| from + k);
        let mut parser =
            Parser::new(&dialect).with_tokens_with_locations(tokens[from..end].to_vec());
        if parser.parse_expr().ok().as_ref() == Some(e) {
            // The index of the last token read (or, after the parser stepped
            // back, of one just before the next).
            let read = from + parser.get_current_index().min(end - from - 1);
            let last = (from..=read)
                .rev()
                .find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))?;
            return Some((from, last));
        }
        // One more token before: stop at what ends a previous item.
        from = (0..from)
            .rev()
            .find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))?;
        match &tokens[from].token {
            Token::Comma | Token::SemiColon => return None,
            t if is_keyword(Some(t), Keyword::SELECT) => return None,
            _ => {}
        }
    }
    None
}

/// Parses one or more `;`-separated statements.
pub fn parse_sql(sql: &str) -> Result<Vec<Statement>> {
    let dialect = QuiverDialect::default();
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    check_chain_length(&tokens)?;
    check_query_nesting(&tokens)?;
    check_group_concat(sql, &tokens)?;
    let tokens = rewrite_tokens(tokens);
    Parser::new(&dialect)
        .with_recursion_limit(MAX_PARSER_DEPTH)
        .with_tokens_with_locations(tokens)
        .parse_statements()
        .map_err(|e| match e {
            ParserError::RecursionLimitExceeded => QuiverError::syntax_msg(
                "You have an error in your SQL syntax: the statement is nested too deeply",
            ),
            ParserError::TokenizerError(m) | ParserError::ParserError(m) => syntax_error(sql, &m),
        })
}

/// How deep the parser may recurse (parentheses, CASE, subqueries): MariaDB
/// takes far more than sqlparser's default 50; each level costs the parser
/// a few KiB of stack, so this stays well inside a 2 MiB thread's stack
/// (a test parses, binds and runs it in one).
pub const MAX_PARSER_DEPTH: usize = 200;

/// Query blocks nested in one another at most (the top query, subqueries,
/// derived tables). sqlparser spends ~27 KiB of stack per nested query and
/// the plan walks deepen with each: 48 stay well inside a 2 MiB thread.
pub const MAX_QUERY_DEPTH: usize = 48;

/// Error 1436 for queries nested more than [`MAX_QUERY_DEPTH`] deep, found
/// in the tokens before the parser recurses into them: a parenthesis holds a
/// query when SELECT comes directly inside it.
fn check_query_nesting(tokens: &[TokenWithSpan]) -> Result<()> {
    let mut open: Vec<bool> = Vec::new();
    let mut depth = 1;
    for t in tokens {
        match &t.token {
            Token::LParen => open.push(false),
            Token::RParen => {
                let closes_query = open.pop() == Some(true);
                if closes_query {
                    depth -= 1;
                }
            }
            Token::Word(w) if w.keyword == Keyword::SELECT => {
                if let Some(holds_query) = open.last_mut().filter(|q| !**q) {
                    *holds_query = true;
                    depth += 1;
                    if depth > MAX_QUERY_DEPTH {
                        return Err(too_deep());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// One `GROUP_CONCAT(` call among the tokens: its parenthesis, and the
/// clauses at its own depth.
struct GroupConcatCall {
    open: usize,
    /// The closing parenthesis (None: the statement ends first).
    close: Option<usize>,
    separator: Option<usize>,
    limit: Option<usize>,
}

fn group_concat_calls(tokens: &[TokenWithSpan]) -> Vec<GroupConcatCall> {
    let mut calls = vec![];
    for (i, t) in tokens.iter().enumerate() {
        let Token::Word(w) = &t.token else {
            continue;
        };
        // JSON_ARRAYAGG takes GROUP_CONCAT's clauses (MariaDB builds it on it).
        let clauses = ["group_concat", "json_arrayagg", "json_objectagg"];
        if w.quote_style.is_some() || !clauses.iter().any(|c| w.value.eq_ignore_ascii_case(c)) {
            continue;
        }
        let Some(open) = next_token(tokens, i + 1).filter(|&k| tokens[k].token == Token::LParen)
        else {
            continue;
        };
        let mut call = GroupConcatCall {
            open,
            close: None,
            separator: None,
            limit: None,
        };
        let mut depth = 0usize;
        for (j, t) in tokens.iter().enumerate().skip(open + 1) {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => {
                    call.close = Some(j);
                    break;
                }
                Token::RParen => depth -= 1,
                t if depth == 0 && is_keyword(Some(t), Keyword::SEPARATOR) => {
                    call.separator.get_or_insert(j);
                }
                t if depth == 0 && is_keyword(Some(t), Keyword::LIMIT) => {
                    call.limit.get_or_insert(j);
                }
                _ => {}
            }
        }
        calls.push(call);
    }
    calls
}

/// The index of the first token from `from` on that is not whitespace.
fn next_token(tokens: &[TokenWithSpan], from: usize) -> Option<usize> {
    (from..tokens.len()).find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))
}

/// GROUP_CONCAT's `LIMIT n`, `LIMIT o, n` or `LIMIT n OFFSET o` (unsigned
/// integer literals, the call's last clause) at token `at`: (offset,
/// count) and the token after them (the closing parenthesis); else the
/// token where MySQL's parser stops (None: the end).
fn group_concat_limit(
    tokens: &[TokenWithSpan],
    at: usize,
) -> std::result::Result<((String, String), usize), Option<usize>> {
    let int = |k: Option<usize>| match k.map(|k| &tokens[k].token) {
        Some(Token::Number(n, _)) if n.bytes().all(|b| b.is_ascii_digit()) => {
            Ok((n.clone(), k.expect("a token")))
        }
        _ => Err(k),
    };
    let (first, k) = int(next_token(tokens, at + 1))?;
    let after = next_token(tokens, k + 1);
    let (values, end) = match after.map(|k| &tokens[k].token) {
        Some(Token::Comma) => {
            let (count, k) = int(next_token(tokens, after.expect("a token") + 1))?;
            ((first, count), next_token(tokens, k + 1))
        }
        Some(t) if is_keyword(Some(t), Keyword::OFFSET) => {
            let (offset, k) = int(next_token(tokens, after.expect("a token") + 1))?;
            ((offset, first), next_token(tokens, k + 1))
        }
        _ => (("0".to_string(), first), after),
    };
    match end {
        Some(e) if tokens[e].token == Token::RParen => Ok((values, e)),
        other => Err(other),
    }
}

/// GROUP_CONCAT's forms sqlparser takes and MySQL does not: no argument,
/// `*`, ALL, a SEPARATOR that is not one string literal, and a LIMIT that
/// is not MySQL's; 1064 at the token.
fn check_group_concat(sql: &str, tokens: &[TokenWithSpan]) -> Result<()> {
    let next = |from: usize| next_token(tokens, from);
    let error_at = |k: Option<usize>| match k {
        Some(k) => {
            let l = tokens[k].span.start;
            QuiverError::syntax(rest_from(sql, l.line, l.column), l.line)
        }
        None => QuiverError::syntax("", sql.trim_end().lines().count().max(1) as u64),
    };
    for call in group_concat_calls(tokens) {
        let mut first = next(call.open + 1);
        if let Some(k) = first.filter(|&k| is_keyword(Some(&tokens[k].token), Keyword::DISTINCT)) {
            first = next(k + 1);
        }
        if let Some(k) = first.filter(|&k| {
            matches!(tokens[k].token, Token::RParen | Token::Mul)
                || is_keyword(Some(&tokens[k].token), Keyword::ALL)
        }) {
            return Err(error_at(Some(k)));
        }
        if let Some(j) = call.separator {
            // One string literal (X'..' of whole bytes), then LIMIT or the end.
            let v = next(j + 1);
            let string = v.is_some_and(|v| match &tokens[v].token {
                Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) => true,
                Token::HexStringLiteral(h) => h.len() % 2 == 0,
                _ => false,
            });
            if !string {
                return Err(error_at(v));
            }
            let after = v.and_then(|v| next(v + 1));
            if let Some(k) = after.filter(|&k| {
                tokens[k].token != Token::RParen
                    && !is_keyword(Some(&tokens[k].token), Keyword::LIMIT)
            }) {
                return Err(error_at(Some(k)));
            }
        }
        if let Some(l) = call.limit {
            group_concat_limit(tokens, l).map_err(error_at)?;
        }
    }
    Ok(())
}

/// GROUP_CONCAT's LIMIT as sqlparser reads it: before SEPARATOR (MySQL
/// writes it last), its values one tuple, `LIMIT (offset, count)`.
fn group_concat_limits(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    // From the last call: earlier ones keep their indices.
    for call in group_concat_calls(&tokens).into_iter().rev() {
        let Some(l) = call.limit else {
            continue;
        };
        let Ok(((offset, count), close)) = group_concat_limit(&tokens, l) else {
            continue;
        };
        let span = tokens[l].span;
        let with = |token| TokenWithSpan { token, span };
        let space = || with(Token::Whitespace(sqlparser::tokenizer::Whitespace::Space));
        let limit = vec![
            tokens[l].clone(),
            space(),
            with(Token::LParen),
            with(Token::Number(offset, false)),
            with(Token::Comma),
            with(Token::Number(count, false)),
            with(Token::RParen),
            space(),
        ];
        tokens.drain(l..close);
        let at = call.separator.filter(|&s| s < l).unwrap_or(l);
        tokens.splice(at..at, limit);
    }
    tokens
}

pub(crate) fn too_deep() -> QuiverError {
    QuiverError::new(
        1436,
        "HY000",
        format!("Thread stack overrun: queries nested more than {MAX_QUERY_DEPTH} deep"),
    )
}

/// Longest run of binary operators allowed in one list element. sqlparser
/// builds `a + b + c ...` as a left-deep tree and frees it recursively, so a
/// huge run would overflow the stack; the binder stops far earlier anyway.
const MAX_OPERATOR_RUN: usize = 2000;

fn check_chain_length(tokens: &[TokenWithSpan]) -> Result<()> {
    let mut run = 0usize;
    for t in tokens {
        match &t.token {
            Token::Comma | Token::SemiColon => run = 0,
            Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::Mod
            | Token::Eq
            | Token::DoubleEq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Spaceship
            | Token::StringConcat
            | Token::Ampersand
            | Token::Pipe
            | Token::Caret => run += 1,
            Token::Word(w)
                if matches!(
                    w.keyword,
                    Keyword::AND
                        | Keyword::OR
                        | Keyword::XOR
                        | Keyword::DIV
                        | Keyword::MOD
                        | Keyword::NOT
                ) =>
            {
                run += 1
            }
            _ => {}
        }
        if run > MAX_OPERATOR_RUN {
            return Err(QuiverError::new(
                1436,
                "HY000",
                "Thread stack overrun: the statement nests expressions too deeply",
            ));
        }
    }
    Ok(())
}

/// Maps sqlparser's "... at Line: X, Column: Y" to MySQL's "near '<rest>' at line X".
/// Without a position the error is at the end of the text (MySQL says near '').
fn syntax_error(sql: &str, message: &str) -> QuiverError {
    match error_position(message) {
        Some((line, column)) => QuiverError::syntax(rest_from(sql, line, column), line),
        None => {
            // Errors at the end name the token they found; an unexpected token
            // without a position is looked up in the text.
            let found = message
                .rsplit_once("found: ")
                .map(|(_, t)| t.trim())
                .unwrap_or("");
            let line = sql.trim_end().lines().count().max(1) as u64;
            if found.is_empty() || found == "EOF" {
                return QuiverError::syntax("", line);
            }
            match sql.find(found) {
                Some(at) => {
                    let line = sql[..at].matches('\n').count() as u64 + 1;
                    QuiverError::syntax(&sql[at..], line)
                }
                None => QuiverError::syntax("", line),
            }
        }
    }
}

fn error_position(message: &str) -> Option<(u64, u64)> {
    let (_, pos) = message.rsplit_once(" at Line: ")?;
    let (line, column) = pos.split_once(", Column: ")?;
    let column: String = column.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}

/// The text from 1-based (line, column in characters) to the end.
fn rest_from(sql: &str, line: u64, column: u64) -> &str {
    let mut offset = 0;
    for (i, l) in sql.split_inclusive('\n').enumerate() {
        if i as u64 + 1 == line {
            let col = l
                .char_indices()
                .nth(column.saturating_sub(1) as usize)
                .map(|(b, _)| b)
                .unwrap_or(l.len());
            return &sql[offset + col..];
        }
        offset += l.len();
    }
    ""
}

fn significant(tokens: &[TokenWithSpan], from: usize, step: isize) -> Option<&Token> {
    let mut i = from as isize + step;
    while i >= 0 && (i as usize) < tokens.len() {
        match &tokens[i as usize].token {
            Token::Whitespace(_) => i += step,
            t => return Some(t),
        }
    }
    None
}

/// Keywords that can not end an operand (so `<kw> MOD` is not an infix MOD).
const NOT_OPERAND_END: &[Keyword] = &[
    Keyword::SELECT,
    Keyword::WHERE,
    Keyword::AND,
    Keyword::OR,
    Keyword::XOR,
    Keyword::NOT,
    Keyword::ON,
    Keyword::BY,
    Keyword::HAVING,
    Keyword::WHEN,
    Keyword::THEN,
    Keyword::ELSE,
    Keyword::CASE,
    Keyword::IN,
    Keyword::LIKE,
    Keyword::BETWEEN,
    Keyword::IS,
    Keyword::DISTINCT,
    Keyword::ALL,
    Keyword::DIV,
    Keyword::MOD,
    Keyword::SET,
    Keyword::VALUES,
];

/// Keywords that can not start an operand (so `MOD <kw>` makes MOD an alias or name).
const NOT_OPERAND_START: &[Keyword] = &[
    Keyword::FROM,
    Keyword::WHERE,
    Keyword::GROUP,
    Keyword::ORDER,
    Keyword::HAVING,
    Keyword::LIMIT,
    Keyword::UNION,
    Keyword::AS,
    Keyword::ON,
    Keyword::USING,
    Keyword::JOIN,
    Keyword::INNER,
    Keyword::LEFT,
    Keyword::RIGHT,
    Keyword::CROSS,
    Keyword::AND,
    Keyword::OR,
    Keyword::XOR,
    Keyword::WINDOW,
    Keyword::INTO,
    Keyword::FOR,
    Keyword::END,
    Keyword::THEN,
    Keyword::ELSE,
    Keyword::WHEN,
    Keyword::ASC,
    Keyword::DESC,
    Keyword::OFFSET,
    Keyword::IS,
    Keyword::IN,
    Keyword::LIKE,
    Keyword::BETWEEN,
    Keyword::DIV,
    Keyword::MOD,
];

fn ends_operand(t: Option<&Token>) -> bool {
    match t {
        Some(
            Token::Number(..)
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::RParen,
        ) => true,
        Some(Token::Word(w)) => w.quote_style.is_some() || !NOT_OPERAND_END.contains(&w.keyword),
        _ => false,
    }
}

fn starts_operand(t: Option<&Token>) -> bool {
    match t {
        Some(
            Token::Number(..)
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::LParen
            | Token::Minus
            | Token::Plus
            | Token::AtSign,
        ) => true,
        Some(Token::Word(w)) => w.quote_style.is_some() || !NOT_OPERAND_START.contains(&w.keyword),
        _ => false,
    }
}

/// Returns where a `CHARSET` of such a cast stands.
fn cast_charset_to_convert(tokens: &mut [TokenWithSpan]) -> Vec<usize> {
    let mut charset_words = Vec::new();
    for i in 0..tokens.len() {
        if !is_keyword(Some(&tokens[i].token), Keyword::CAST)
            || significant(tokens, i, 1) != Some(&Token::LParen)
        {
            continue;
        }
        let (mut depth, mut as_at, mut charset) = (0usize, None, None);
        for (k, t) in tokens.iter().enumerate().skip(i + 1) {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                tok if depth == 1 => {
                    if is_keyword(Some(tok), Keyword::AS) {
                        (as_at, charset) = (Some(k), None);
                    } else if as_at.is_some()
                        && (is_keyword(Some(tok), Keyword::CHARACTER)
                            || is_keyword(Some(tok), Keyword::CHARSET))
                    {
                        charset = Some(k);
                    }
                }
                _ => {}
            }
        }
        if let (Some(a), Some(c)) = (as_at, charset) {
            tokens[i].token = Token::make_keyword("CONVERT");
            tokens[a].token = Token::Comma;
            if is_keyword(Some(&tokens[c].token), Keyword::CHARSET) {
                charset_words.push(c);
            }
        }
    }
    charset_words
}

fn is_keyword(t: Option<&Token>, k: Keyword) -> bool {
    matches!(t, Some(Token::Word(w)) if w.keyword == k && w.quote_style.is_none())
}

/// Rewrites the MySQL forms sqlparser does not parse into ones it does:
/// infix `a MOD b` becomes `a % b`, `TRIM(LEADING FROM s)` gets the
/// implicit `' '` (`TRIM(LEADING ' ' FROM s)`), and
/// `CAST(x AS CHAR CHARACTER SET cs)` becomes `CONVERT(x, CHAR CHARACTER SET cs)`,
/// which MySQL defines as the same, and GROUP_CONCAT's LIMIT comes before
/// its SEPARATOR (`group_concat_limits`).
fn rewrite_tokens(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut tokens = group_concat_limits(tokens);
    let charset_words = cast_charset_to_convert(&mut tokens);
    let mut out = Vec::with_capacity(tokens.len());
    for i in 0..tokens.len() {
        let t = &tokens[i];
        if charset_words.contains(&i) {
            // sqlparser's CONVERT knows `CHARACTER SET`, not `CHARSET`.
            for (j, word) in ["CHARACTER", "SET"].into_iter().enumerate() {
                if j > 0 {
                    out.push(TokenWithSpan {
                        token: Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                        span: t.span,
                    });
                }
                out.push(TokenWithSpan {
                    token: Token::make_keyword(word),
                    span: t.span,
                });
            }
            continue;
        }
        if is_keyword(Some(&t.token), Keyword::MOD)
            && ends_operand(significant(&tokens, i, -1))
            && starts_operand(significant(&tokens, i, 1))
        {
            out.push(TokenWithSpan {
                token: Token::Mod,
                span: t.span,
            });
            continue;
        }
        out.push(t.clone());
        let trim_side = [Keyword::LEADING, Keyword::TRAILING, Keyword::BOTH]
            .iter()
            .any(|k| is_keyword(Some(&t.token), *k));
        if trim_side && is_keyword(significant(&tokens, i, 1), Keyword::FROM) {
            out.push(TokenWithSpan {
                token: Token::SingleQuotedString(" ".into()),
                span: t.span,
            });
        }
    }
    out
}

/// `q` cloned without recursing down its chain of set operations: a UNION
/// of thousands of SELECTs is a tree as deep, too deep for the derived
/// `Clone` on a thread's stack.
pub fn clone_query(q: &Query) -> Query {
    Query {
        with: q.with.clone(),
        body: Box::new(clone_set_expr(&q.body)),
        order_by: q.order_by.clone(),
        limit_clause: q.limit_clause.clone(),
        fetch: q.fetch.clone(),
        locks: q.locks.clone(),
        for_clause: q.for_clause.clone(),
        settings: q.settings.clone(),
        format_clause: q.format_clause.clone(),
        pipe_operators: q.pipe_operators.clone(),
    }
}

fn clone_set_expr(s: &SetExpr) -> SetExpr {
    let mut spine = Vec::new();
    let mut cur = s;
    while let SetExpr::SetOperation {
        op,
        set_quantifier,
        left,
        right,
    } = cur
    {
        spine.push((*op, *set_quantifier, right));
        cur = left;
    }
    let mut out = match cur {
        SetExpr::Query(q) => SetExpr::Query(Box::new(clone_query(q))),
        leaf => leaf.clone(),
    };
    for (op, set_quantifier, right) in spine.into_iter().rev() {
        out = SetExpr::SetOperation {
            op,
            set_quantifier,
            left: Box::new(out),
            right: Box::new(clone_set_expr(right)),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_point_at_the_rest_of_the_statement() {
        let e = parse_sql("SELEC 1").unwrap_err();
        assert_eq!(e.code, 1064);
        assert!(
            e.message.ends_with("near 'SELEC 1' at line 1"),
            "{}",
            e.message
        );
        let e = parse_sql("select a\nfrom t where b = = 3").unwrap_err();
        assert!(e.message.ends_with("near '= 3' at line 2"), "{}", e.message);
        let e = parse_sql("SELECT * FROM").unwrap_err();
        assert!(e.message.ends_with("near '' at line 1"), "{}", e.message);
        let e = parse_sql("CREATE TABLE (a INT)").unwrap_err();
        assert!(
            e.message.contains("near '(a INT)' at line 1"),
            "{}",
            e.message
        );
    }

    #[test]
    fn group_concat_forms_mysql_refuses_point_at_their_token() {
        for (sql, near) in [
            ("SELECT GROUP_CONCAT() FROM t", ") FROM t"),
            ("SELECT GROUP_CONCAT( * ) FROM t", "* ) FROM t"),
            ("SELECT group_concat(DISTINCT) FROM t", ") FROM t"),
            ("SELECT GROUP_CONCAT(ALL s) FROM t", "ALL s) FROM t"),
            ("SELECT GROUP_CONCAT(s SEPARATOR 1) FROM t", "1) FROM t"),
            ("SELECT GROUP_CONCAT(s\nSEPARATOR s) FROM t", "s) FROM t"),
            (
                "SELECT GROUP_CONCAT(s LIMIT 2 SEPARATOR ',') FROM t",
                "SEPARATOR ',') FROM t",
            ),
            ("SELECT GROUP_CONCAT(s LIMIT 1, x) FROM t", "x) FROM t"),
            ("SELECT GROUP_CONCAT(s LIMIT 1 OFFSET", ""),
            (
                "SELECT GROUP_CONCAT(s SEPARATOR X'4') FROM t",
                "X'4') FROM t",
            ),
            (
                "SELECT GROUP_CONCAT(s SEPARATOR 'a' 'b') FROM t",
                "'b') FROM t",
            ),
        ] {
            let e = parse_sql(sql).unwrap_err();
            assert_eq!(e.code, 1064, "{sql}");
            assert!(
                e.message.contains(&format!("near '{near}'")),
                "{sql}: {}",
                e.message
            );
        }
        for ok in [
            "SELECT GROUP_CONCAT(DISTINCT a, (b) ORDER BY c DESC SEPARATOR '; ') FROM t",
            "SELECT GROUP_CONCAT(a SEPARATOR X'2C') FROM t",
            "SELECT separator FROM t",
        ] {
            assert!(parse_sql(ok).is_ok(), "{ok}");
        }
        // LIMIT goes before SEPARATOR, as sqlparser reads it, one tuple.
        for (sql, limit) in [
            ("GROUP_CONCAT(a SEPARATOR ';' LIMIT 2)", "(0, 2)"),
            ("GROUP_CONCAT(a ORDER BY a LIMIT 3, 2)", "(3, 2)"),
            ("GROUP_CONCAT(a SEPARATOR ';' LIMIT 2 OFFSET 5)", "(5, 2)"),
        ] {
            let s = parse_sql(&format!("SELECT {sql}, GROUP_CONCAT(b LIMIT 1) FROM t")).unwrap();
            let text = s[0].to_string();
            assert!(text.contains(&format!("LIMIT {limit}")), "{text}");
            assert!(text.contains("GROUP_CONCAT(b LIMIT (0, 1))"), "{text}");
        }
    }

    #[test]
    fn mysql_forms_sqlparser_lacks() {
        let s = parse_sql("SELECT 7 MOD 3, MOD(7, 3), a mod FROM t").unwrap();
        assert_eq!(s[0].to_string(), "SELECT 7 % 3, MOD(7, 3), a AS mod FROM t");
        let s = parse_sql("SELECT TRIM(LEADING FROM ' a '), TRIM(BOTH 'x' FROM s)").unwrap();
        assert_eq!(
            s[0].to_string(),
            "SELECT TRIM(LEADING ' ' FROM ' a '), TRIM(BOTH 'x' FROM s)"
        );
    }
}
