// The resolver reads `ticket` by name (by value), but the tool has no argument `ticket`.
use mcp::Resolve;

#[mcp::resolver]
fn ask_team(ticket: u32) -> String {
    format!("team for #{ticket}")
}

/// Triage a ticket.
#[mcp::tool]
fn triage(id: u32, team: Resolve<ask_team>) -> String {
    format!("#{id} -> {}", *team)
}

fn main() {}
