// URI template variables are strings; each parameter is parsed with `FromStr`.
struct Table {
    name: String,
}

#[mcp::resource("db://{table}/rows")]
fn rows(table: Table) -> String {
    format!("rows of {}", table.name)
}

fn main() {}
