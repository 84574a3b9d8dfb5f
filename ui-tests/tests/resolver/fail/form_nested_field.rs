// A form is flat: a nested struct or a list of numbers is not a form field.
#[derive(serde::Deserialize)]
struct Address {
    city: String,
}

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Signup {
    name: String,
    address: Address,
    lucky_numbers: Vec<u32>,
}

fn main() {}
