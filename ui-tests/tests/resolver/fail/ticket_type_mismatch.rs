// The resolver takes `ticket: u32`, but the tool's argument `ticket` is a `String`.
use mcp::Resolve;

#[mcp::resolver]
fn ask_team(ticket: u32) -> String {
    format!("team for #{ticket}")
}

/// Triage a ticket.
#[mcp::tool]
fn triage(ticket: String, team: Resolve<ask_team>) -> String {
    format!("{ticket} -> {}", *team)
}

fn main() {}
