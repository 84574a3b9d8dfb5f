#[mcp::tool]
fn search(query: String, #[mcp(defualt = 10)] limit: u32) -> String {
    format!("{query} {limit}")
}

fn main() {}
