// Resolvers of every shape: plain values, questions, `Result`s, `Context` by value and
// by reference, tool arguments by value, by reference and renamed, and chains.
use mcp::items::ToolDef;
use mcp::resolve::{Answer, Elicit, ListRoots, Refusable, Sample};
use mcp::{Context, Json, Resolve};

/// A yes or no.
#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    ok: bool,
}

/// A choice.
#[derive(serde::Deserialize, mcp::ElicitForm)]
#[serde(rename_all = "kebab-case")]
enum Tier {
    Small,
    ExtraLarge,
}

/// A richer form.
#[derive(serde::Deserialize, mcp::ElicitForm)]
#[serde(rename_all = "camelCase")]
struct Order {
    /// How many.
    copy_count: u8,
    tier: Tier,
    extras: Vec<Tier>,
    #[serde(rename = "note")]
    remark: Option<String>,
    #[serde(default)]
    rush: bool,
    #[serde(skip)]
    _internal: (),
}

/// The caller's account (from the request state, or a failure).
#[mcp::resolver]
async fn account(ctx: Context) -> Result<String, String> {
    ctx.request_state().map(str::to_owned).ok_or_else(|| "no account".to_owned())
}

/// A quota that never asks.
#[mcp::resolver]
fn quota(ctx: &Context) -> u64 {
    if ctx.is_legacy() { 10 } else { 100 }
}

/// Asks to confirm spending.
#[mcp::resolver(key = "spend.confirm")]
fn confirm(amount: u64, quota: Resolve<quota>) -> Elicit<Confirm> {
    if amount * 2 < *quota {
        return Elicit::answered(Confirm { ok: true });
    }
    Elicit::new(format!("Spend {amount} of {}?", *quota))
}

/// Asks for an order.
#[mcp::resolver]
fn order(#[mcp(rename = "title")] book: &str, _confirm: Resolve<confirm, Refusable>) -> Result<Elicit<Order>, mcp::Error> {
    Ok(Elicit::new(format!("Order {book}?")))
}

/// Asks the model.
#[mcp::resolver]
async fn summary(title: String) -> Sample {
    Sample::user(format!("Summarize {title}"), 20)
}

/// Asks for the roots.
#[mcp::resolver]
fn roots() -> ListRoots {
    ListRoots::new()
}

/// Who am I?
#[mcp::tool]
async fn whoami(account: Resolve<account>) -> String {
    account.into_inner()
}

/// Spend some quota.
#[mcp::tool]
fn spend(
    amount: u64,
    account: Resolve<account>,
    ctx: Context,
    quota: mcp::Resolve<quota>,
    confirm: Resolve<confirm, Refusable>,
) -> Result<Json<u64>, String> {
    let _ = (ctx.request_state(), account.len());
    match &*confirm {
        Answer::Accept(c) if c.ok => quota.checked_sub(amount).map(Json).ok_or_else(|| "over quota".to_owned()),
        _ => Err("not confirmed".to_owned()),
    }
}

/// Order a book.
#[mcp::tool]
fn buy(title: String, amount: u64, order: Resolve<order>, summary: Resolve<summary>, roots: Resolve<roots>) -> String {
    format!("{title} x{} ({amount}) {} {}", order.copy_count, summary.model, roots.roots.len())
}

/// Nothing to return.
#[mcp::tool]
fn touch(_account: Resolve<account>) {}

fn main() {
    let def = <spend as ToolDef>::definition();
    assert_eq!(def.input_schema["required"], mcp::serde_json::json!(["amount"]), "resolved parameters are not arguments");
    assert!(def.input_schema["properties"].get("account").is_none());
    assert!(<whoami as ToolDef>::definition().input_schema["properties"].as_object().is_some_and(|p| p.is_empty()));
    let _ = <touch as ToolDef>::definition();
    let _ = <buy as ToolDef>::definition();
    let schema = mcp::serde_json::to_value(<Order as mcp::ElicitForm>::schema()).unwrap_or_default();
    assert_eq!(schema["required"], mcp::serde_json::json!(["copyCount", "tier", "extras"]));
    assert_eq!(schema["properties"]["tier"]["enum"], mcp::serde_json::json!(["small", "extra-large"]));
    assert_eq!(schema["properties"]["extras"]["items"]["enum"], mcp::serde_json::json!(["small", "extra-large"]));
    assert_eq!(schema["properties"]["copyCount"]["maximum"], 255);
    assert!(schema["properties"].get("note").is_some() && schema["properties"].get("_internal").is_none());
    assert_eq!(<confirm as mcp::resolve::Resolver>::KEY, "spend.confirm");
    assert_eq!(<order as mcp::resolve::Resolver>::DEPTH, 3);
}
