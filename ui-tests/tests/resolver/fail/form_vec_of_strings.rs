// A multi-select field is a `Vec` of a choice enum, not of strings.
use std::collections::HashSet;

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Assign {
    teams: Vec<String>,
    labels: HashSet<String>,
}

fn main() {}
