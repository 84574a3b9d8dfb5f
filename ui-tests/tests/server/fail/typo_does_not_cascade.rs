// One typo, one error: the item is still registered, and nothing else complains.
#[mcp::tool(descripton = "Add two numbers.")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[mcp::prompt(titel = "Review")]
fn review(code: String) -> String {
    format!("Review {code}")
}

#[mcp::resource("file:///notes", mime = "text/plain")]
fn notes() -> String {
    "notes".to_owned()
}

fn main() {
    let _server = mcp::Server::builder("calc", "1.0.0").tool::<add>().prompt::<review>().resource::<notes>().build();
}
