// A prompt registered as a tool.
#[mcp::prompt]
fn review(code: String) -> String {
    format!("Review {code}")
}

fn main() {
    let _server = mcp::Server::builder("review", "1.0.0").tool::<review>().build();
}
