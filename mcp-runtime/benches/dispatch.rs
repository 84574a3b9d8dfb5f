//! The server's hot paths without a transport: decode a JSON-RPC line, dispatch it, and
//! encode the response line, as the stdio and HTTP transports do for every message.
//!
//! - `tools/call` of an echo tool with small, 1 KiB and 64 KiB arguments;
//! - `tools/list` of 100 macro tools;
//! - a multi round-trip call: round 1 (resolver visit, question, seal) and round 2
//!   (unseal, resume, run the tool), each measured alone.
//!
//! - reading a message strictly (depth limit, duplicate keys refused) next to
//!   `serde_json`'s own `Value` reader, so the price of the hostile-input rules shows.
//!
//! `cargo bench -p mcp-runtime --bench dispatch -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp::handler::Session;
use mcp::protocol::{JsonRpcMessage, decode_message};
use mcp::resolve::Elicit;
use mcp::{Resolve, Server};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Echo the text back.
#[mcp::tool]
fn echo(text: String) -> String {
    text
}

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Region {
    region: String,
}

#[mcp::resolver]
fn ask_region(name: &str) -> Elicit<Region> {
    Elicit::new(format!("Which region should {name} live in?"))
}

/// Provision a database.
#[mcp::tool]
fn provision(name: String, region: Resolve<ask_region>) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

macro_rules! hundred {
    ($($name:ident),*) => {
        $(
            /// Repeat a text.
            #[mcp::tool(annotations(read_only))]
            fn $name(
                /// The text.
                text: String,
                /// How many times.
                times: Option<u32>,
            ) -> String {
                text.repeat(times.unwrap_or(1) as usize)
            }
        )*
        fn hundred_server() -> Server {
            Server::builder("hundred", "1.0.0") $(.tool::<$name>())* .build()
        }
    };
}

hundred!(
    t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19, t20, t21, t22,
    t23, t24, t25, t26, t27, t28, t29, t30, t31, t32, t33, t34, t35, t36, t37, t38, t39, t40, t41, t42, t43, t44, t45,
    t46, t47, t48, t49, t50, t51, t52, t53, t54, t55, t56, t57, t58, t59, t60, t61, t62, t63, t64, t65, t66, t67, t68,
    t69, t70, t71, t72, t73, t74, t75, t76, t77, t78, t79, t80, t81, t82, t83, t84, t85, t86, t87, t88, t89, t90, t91,
    t92, t93, t94, t95, t96, t97, t98, t99
);

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0.0"},
    })
}

fn line(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string()
}

/// What a transport does for one line: decode, dispatch, encode the response.
async fn serve_line(server: &Server, session: &Arc<Session>, text: &str) -> String {
    let Ok(JsonRpcMessage::Request(request)) = decode_message(text) else { panic!("not a request: {text}") };
    let (tx, _rx) = mpsc::channel(8);
    let frame = server.respond(session, request, tx).await;
    assert!(!frame.contains(r#""error""#), "{frame}");
    frame
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

fn tools_call(c: &mut Criterion) {
    let rt = runtime();
    let server = Server::builder("bench", "1.0.0").tool::<echo>().build();
    let session = Arc::new(Session::new());
    let mut group = c.benchmark_group("tools_call_echo");
    for (label, size) in [("small", 5), ("1KiB", 1024), ("64KiB", 64 * 1024)] {
        let text = "x".repeat(size);
        let request = line("tools/call", json!({"_meta": meta(), "name": "echo", "arguments": {"text": text}}));
        group.bench_function(label, |b| {
            b.iter(|| rt.block_on(serve_line(&server, &session, black_box(&request))));
        });
    }
    group.finish();
}

fn tools_list(c: &mut Criterion) {
    let rt = runtime();
    let server = hundred_server();
    let session = Arc::new(Session::new());
    let request = line("tools/list", json!({"_meta": meta()}));
    let bytes = rt.block_on(serve_line(&server, &session, &request)).len();
    c.bench_function(&format!("tools_list_100 ({bytes} bytes)"), |b| {
        b.iter(|| rt.block_on(serve_line(&server, &session, black_box(&request))));
    });
}

fn mrtr(c: &mut Criterion) {
    let rt = runtime();
    let server = Server::builder("bench", "1.0.0").tool::<provision>().build();
    let session = Arc::new(Session::new());
    let first = line("tools/call", json!({"_meta": meta(), "name": "provision", "arguments": {"name": "orders"}}));
    let asked: Value = serde_json::from_str(&rt.block_on(serve_line(&server, &session, &first))).expect("json");
    let state = asked["result"]["requestState"].clone();
    let key = asked["result"]["inputRequests"].as_object().and_then(|r| r.keys().next().cloned()).expect("a question");
    let second = line(
        "tools/call",
        json!({
            "_meta": meta(), "name": "provision", "arguments": {"name": "orders"},
            "inputResponses": {key: {"action": "accept", "content": {"region": "eu-west-1"}}},
            "requestState": state,
        }),
    );
    let done = rt.block_on(serve_line(&server, &session, &second));
    assert!(done.contains("Provisioned 'orders' in eu-west-1."), "{done}");
    let mut group = c.benchmark_group("mrtr");
    group.bench_function("round1_ask_and_seal", |b| {
        b.iter(|| rt.block_on(serve_line(&server, &session, black_box(&first))));
    });
    group.bench_function("round2_unseal_and_resume", |b| {
        b.iter(|| rt.block_on(serve_line(&server, &session, black_box(&second))));
    });
    group.finish();
}

fn json_read(c: &mut Criterion) {
    let mut group = c.benchmark_group("json_read");
    let call_line =
        |arguments: Value| line("tools/call", json!({"_meta": meta(), "name": "echo", "arguments": arguments}));
    let small = call_line(json!({"text": "hello"}));
    let nested = call_line(
        json!({"rows": (0..64).map(|i| json!({"id": i, "tags": ["a", "b"], "v": {"x": i}})).collect::<Vec<_>>()}),
    );
    for (label, line) in [("small", small), ("64_rows", nested)] {
        group.bench_function(format!("serde_json_value/{label}"), |b| {
            b.iter(|| black_box(serde_json::from_str::<Value>(black_box(&line)).ok()))
        });
        group.bench_function(format!("strict/{label}"), |b| {
            b.iter(|| {
                black_box(mcp::protocol::parse_strict(black_box(&line), mcp::protocol::DEFAULT_MAX_JSON_DEPTH).ok())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tools_call, tools_list, mrtr, json_read);
criterion_main!(benches);
