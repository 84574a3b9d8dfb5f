// Through a type alias the macro cannot see the name; the compile-time assertion can.
type Ask = mcp::protocol::InputRequiredResult;

#[mcp::resource("file:///notes")]
fn notes() -> Ask {
    Ask::state_only("again")
}

fn main() {}
