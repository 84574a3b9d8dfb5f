#[mcp::resource("db://{table}/rows")]
fn rows(table: String, limit: u32) -> String {
    format!("{limit} rows of {table}")
}

fn main() {}
