struct Calculator {
    offset: i64,
}

impl Calculator {
    #[mcp::tool]
    fn add(&self, a: i64) -> i64 {
        self.offset + a
    }
}

fn main() {}
