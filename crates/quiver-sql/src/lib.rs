//! SQL front end of Quiver: MySQL-dialect text to bound, typed logical plans.
//!
//! [`parse_sql`] turns text into sqlparser statements (with MySQL's error 1064
//! for syntax errors); [`Binder`] resolves names against a [`Catalog`], fixes
//! every expression's type under MySQL's rules (making coercions explicit as
//! casts), and decorrelates subqueries into joins, producing a
//! [`quiver_plan::LogicalPlan`] the optimizer and executor can run.

mod binder;
mod catalog;
mod parser;
mod script;
mod source;
mod types;

#[cfg(test)]
mod tests;

pub use binder::{
    charset_default, collation_by_name, column_charset_default, column_collation_by_name,
    strict_division, strict_division_expr, Binder, SessionIdentity, SessionVars, UserVariable,
};
pub use catalog::{Catalog, DEFAULT_DATABASE};
pub use parser::{
    clone_query, parse_sql, DATABASE_CHARSET, DATABASE_COLLATE, MAX_PARSER_DEPTH,
    SET_CHARACTER_SET, SET_NAMES,
};
pub use script::{placeholders, split_statements};
pub use source::SqlSource;
pub use sqlparser;
pub use types::{
    binary_column_type, cast_type, check_fsp, column_type_text, member_type, sql_type,
};

/// Wraps a view's query so that its output columns get the names of a
/// `CREATE VIEW v (a, b, ...)` column list: `WITH v (a, b) AS (query) SELECT * FROM v`.
/// A catalog can store the result and return it from [`Catalog::view`].
pub fn view_query_with_columns(
    name: &str,
    query: sqlparser::ast::Query,
    columns: &[sqlparser::ast::Ident],
) -> sqlparser::ast::Query {
    use sqlparser::ast::helpers::attached_token::AttachedToken;
    use sqlparser::ast::*;
    if columns.is_empty() {
        return query;
    }
    let ident = Ident::new(name);
    let cte = Cte {
        alias: TableAlias {
            // `explicit` would print `WITH AS v (...)`, which does not parse back.
            explicit: false,
            name: ident.clone(),
            columns: columns
                .iter()
                .map(|c| TableAliasColumnDef {
                    name: c.clone(),
                    data_type: None,
                })
                .collect(),
            at: None,
        },
        query: Box::new(query),
        from: None,
        materialized: None,
        closing_paren_token: AttachedToken::empty(),
    };
    let select = Select {
        select_token: AttachedToken::empty(),
        optimizer_hints: vec![],
        distinct: None,
        select_modifiers: None,
        top: None,
        top_before_distinct: false,
        projection: vec![SelectItem::Wildcard(WildcardAdditionalOptions::default())],
        exclude: None,
        into: None,
        from: vec![TableWithJoins {
            relation: TableFactor::Table {
                name: ObjectName::from(vec![ident]),
                alias: None,
                args: None,
                with_hints: vec![],
                version: None,
                with_ordinality: false,
                partitions: vec![],
                json_path: None,
                sample: None,
                index_hints: vec![],
            },
            joins: vec![],
        }],
        lateral_views: vec![],
        prewhere: None,
        selection: None,
        connect_by: vec![],
        group_by: GroupByExpr::Expressions(vec![], vec![]),
        cluster_by: vec![],
        distribute_by: vec![],
        sort_by: vec![],
        having: None,
        named_window: vec![],
        qualify: None,
        window_before_qualify: false,
        value_table_mode: None,
        flavor: SelectFlavor::Standard,
    };
    Query {
        with: Some(With {
            with_token: AttachedToken::empty(),
            recursive: false,
            cte_tables: vec![cte],
        }),
        body: Box::new(SetExpr::Select(Box::new(select))),
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
