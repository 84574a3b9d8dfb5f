#[mcp::resource("db://{table}/rows/{id}")]
fn row(table: String) -> String {
    format!("a row of {table}")
}

fn main() {}
