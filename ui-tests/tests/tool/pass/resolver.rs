// `Resolve<R>` parameters with a hand-written resolver, next to plain returns.
use mcp::items::ToolDef;
use mcp::resolve::{Interrupt, Resolver};
use mcp::server::BoxFuture;
use mcp::{Context, Json, Resolve};

/// The caller's account.
struct Account {}

impl Resolver for Account {
    type Output = String;

    fn resolve(ctx: &Context) -> BoxFuture<Result<String, Interrupt>> {
        let state = ctx.request_state().map(str::to_owned);
        Box::pin(async move {
            match state {
                Some(account) => Ok(account),
                None => Err(Interrupt::Ask(mcp::protocol::InputRequiredResult::state_only("which account?"))),
            }
        })
    }
}

/// A quota, from a resolver that never interrupts.
struct Quota {}

impl Resolver for Quota {
    type Output = u64;

    fn resolve(_ctx: &Context) -> BoxFuture<Result<u64, Interrupt>> {
        Box::pin(async { Ok(100) })
    }
}

/// Who am I?
#[mcp::tool]
async fn whoami(account: Resolve<Account>) -> String {
    account.into_inner()
}

/// Spend some quota.
#[mcp::tool]
fn spend(
    amount: u64,
    account: Resolve<Account>,
    ctx: Context,
    quota: mcp::Resolve<Quota>,
) -> Result<Json<u64>, String> {
    let _ = (ctx.request_state(), account.len());
    quota.checked_sub(amount).map(Json).ok_or_else(|| "over quota".to_owned())
}

/// Nothing to return.
#[mcp::tool]
fn touch(_account: Resolve<Account>) {}

fn main() {
    let def = <spend as ToolDef>::definition();
    assert_eq!(
        def.input_schema["required"],
        mcp::serde_json::json!(["amount"]),
        "resolved parameters are not arguments"
    );
    assert!(def.input_schema["properties"].get("account").is_none());
    assert!(<whoami as ToolDef>::definition().input_schema["properties"].as_object().is_some_and(|p| p.is_empty()));
    let _ = <touch as ToolDef>::definition();
}
