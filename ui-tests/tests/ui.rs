//! Compile-pass and compile-fail tests for `#[mcp::tool]`, `#[mcp::prompt]`,
//! `#[mcp::resource]`, `#[mcp::resolver]`, `#[derive(ElicitForm)]` and registering their companions on a server.
//!
//! Each `fail/*.rs` case has its expected compiler output next to it (`*.stderr`). The
//! output depends on the compiler version (these are pinned to the toolchain CI uses);
//! after an intended change to a message, regenerate with
//! `TRYBUILD=overwrite cargo test -p ui-tests` and review every changed `.stderr`.

#[test]
fn tool() {
    let t = trybuild::TestCases::new();
    t.pass("tests/tool/pass/*.rs");
    t.compile_fail("tests/tool/fail/*.rs");
}

#[test]
fn prompt() {
    let t = trybuild::TestCases::new();
    t.pass("tests/prompt/pass/*.rs");
    t.compile_fail("tests/prompt/fail/*.rs");
}

#[test]
fn resource() {
    let t = trybuild::TestCases::new();
    t.pass("tests/resource/pass/*.rs");
    t.compile_fail("tests/resource/fail/*.rs");
}

#[test]
fn server() {
    let t = trybuild::TestCases::new();
    t.pass("tests/server/pass/*.rs");
    t.compile_fail("tests/server/fail/*.rs");
}

#[test]
fn resolver() {
    let t = trybuild::TestCases::new();
    t.pass("tests/resolver/pass/*.rs");
    t.compile_fail("tests/resolver/fail/*.rs");
}
