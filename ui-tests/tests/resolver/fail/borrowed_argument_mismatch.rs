// The resolver borrows `ticket` as a `&str`, but the tool's argument `ticket` is a `u32`.
use mcp::Resolve;

#[mcp::resolver]
fn ask_team(ticket: &str) -> String {
    format!("team for {ticket}")
}

/// Triage a ticket.
#[mcp::tool]
fn triage(ticket: u32, team: Resolve<ask_team>) -> String {
    format!("#{ticket} -> {}", *team)
}

fn main() {}
