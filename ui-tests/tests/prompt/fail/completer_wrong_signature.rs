// A completer takes the text typed so far (`&str`, or `String`) and returns the values.
fn by_number(typed: u32) -> Vec<String> {
    vec![typed.to_string()]
}

fn counted(typed: &str) -> usize {
    typed.len()
}

/// Pick a language.
#[mcp::prompt]
fn pick(#[mcp(complete = by_number)] language: String, #[mcp(complete = counted)] style: String) -> String {
    format!("{language} {style}")
}

fn main() {}
