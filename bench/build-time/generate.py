"""Generate two equivalent crates with 100 tools each, one written with our macros and one
with rmcp 3.11's, for scripts/build-time.sh. Each tool takes a text, an optional count and a
flag (default false), documents them, and returns the text repeated.

    python3 bench/build-time/generate.py OUT_DIR REPO_ROOT
"""

from __future__ import annotations

import sys
from pathlib import Path

TOOLS = [f"tool_{i:03}" for i in range(100)]


def ours(root: Path) -> tuple[str, str]:
    cargo = f"""[package]
name = "hundred-ours"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
mcp = {{ package = "mcp-runtime", path = "{root / 'mcp-runtime'}" }}
"""
    body = ["//! 100 tools written with `#[mcp::tool]`.", "", "use mcp::Server;", ""]
    for name in TOOLS:
        body += [
            f"/// Tool `{name}`: repeat a text, optionally shouting it.",
            "#[mcp::tool(annotations(read_only, idempotent))]",
            f"pub fn {name}(",
            "    /// The text to repeat.",
            "    text: String,",
            "    /// How many times (default 1).",
            "    times: Option<u32>,",
            "    /// Upper-case the result.",
            "    #[mcp(default = false)]",
            "    shout: bool,",
            ") -> String {",
            "    let out = text.repeat(times.unwrap_or(1) as usize);",
            "    if shout { out.to_uppercase() } else { out }",
            "}",
            "",
        ]
    body += ["/// The server with all 100 tools.", "pub fn server() -> Server {",
             '    Server::builder("hundred", "0.1.0")']
    body += [f"        .tool::<{name}>()" for name in TOOLS]
    body += ["        .build()", "}", ""]
    return cargo, "\n".join(body)


def rmcp() -> tuple[str, str]:
    cargo = """[package]
name = "hundred-rmcp"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
rmcp = { version = "=3.11.0", features = ["server", "macros", "schemars"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
"""
    body = [
        "//! 100 tools written with rmcp's `#[tool]` macros.",
        "",
        "use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};",
        "use rmcp::schemars::{self, JsonSchema};",
        "use rmcp::{ServerHandler, tool, tool_handler, tool_router};",
        "use serde::Deserialize;",
        "",
        "/// The arguments every tool takes.",
        "#[derive(Debug, Deserialize, JsonSchema)]",
        "pub struct Args {",
        "    /// The text to repeat.",
        "    pub text: String,",
        "    /// How many times (default 1).",
        "    pub times: Option<u32>,",
        "    /// Upper-case the result.",
        "    #[serde(default)]",
        "    pub shout: bool,",
        "}",
        "",
        "/// The server with all 100 tools.",
        "#[derive(Clone)]",
        "pub struct Hundred {",
        "    tool_router: ToolRouter<Hundred>,",
        "}",
        "",
        "#[tool_router]",
        "impl Hundred {",
        "    /// A server.",
        "    pub fn new() -> Self {",
        "        Hundred { tool_router: Self::tool_router() }",
        "    }",
        "",
    ]
    for name in TOOLS:
        body += [
            f"    /// Tool `{name}`: repeat a text, optionally shouting it.",
            "    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]",
            f"    fn {name}(&self, Parameters(args): Parameters<Args>) -> String {{",
            "        let out = args.text.repeat(args.times.unwrap_or(1) as usize);",
            "        if args.shout { out.to_uppercase() } else { out }",
            "    }",
            "",
        ]
    body += ["}", "", "#[tool_handler]", "impl ServerHandler for Hundred {}", ""]
    return cargo, "\n".join(body)


def main() -> None:
    out, root = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    for name, (cargo, lib) in {"ours": ours(root), "rmcp": rmcp()}.items():
        crate = out / name
        (crate / "src").mkdir(parents=True, exist_ok=True)
        (crate / "Cargo.toml").write_text(cargo)
        (crate / "src" / "lib.rs").write_text(lib)


if __name__ == "__main__":
    main()
