// `Resolve` must be the whole parameter type, in tools and in resolvers.
use mcp::Resolve;

#[mcp::resolver]
fn quota() -> u64 {
    10
}

#[mcp::resolver]
fn doubled(quota: Option<Resolve<quota>>) -> u64 {
    quota.map_or(0, |q| *q * 2)
}

/// Spend.
#[mcp::tool]
fn spend(quota: Option<Resolve<quota>>) -> String {
    format!("{}", quota.is_some())
}

fn main() {}
