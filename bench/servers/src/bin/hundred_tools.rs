//! A server with 100 tools, to measure what many `#[mcp::tool]` items cost to build
//! and to list. Each tool takes a text, an optional count and a flag.
//!
//! Run it with `hundred_tools stdio` or `hundred_tools http 127.0.0.1:8000`.

use mcp::Server;

macro_rules! tools {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("Tool `", stringify!($name), "`: repeat a text, optionally shouting it.")]
            #[mcp::tool(annotations(read_only, idempotent))]
            pub fn $name(
                /// The text to repeat.
                text: String,
                /// How many times (default 1).
                times: Option<u32>,
                /// Upper-case the result.
                #[mcp(default = false)]
                shout: bool,
            ) -> String {
                let out = text.repeat(times.unwrap_or(1) as usize);
                if shout { out.to_uppercase() } else { out }
            }
        )*

        /// The server with all 100 tools.
        pub fn server() -> Server {
            Server::builder("hundred", env!("CARGO_PKG_VERSION"))
                $(.tool::<$name>())*
                .build()
        }
    };
}

tools!(
    tool_000, tool_001, tool_002, tool_003, tool_004, tool_005, tool_006, tool_007, tool_008, tool_009, tool_010,
    tool_011, tool_012, tool_013, tool_014, tool_015, tool_016, tool_017, tool_018, tool_019, tool_020, tool_021,
    tool_022, tool_023, tool_024, tool_025, tool_026, tool_027, tool_028, tool_029, tool_030, tool_031, tool_032,
    tool_033, tool_034, tool_035, tool_036, tool_037, tool_038, tool_039, tool_040, tool_041, tool_042, tool_043,
    tool_044, tool_045, tool_046, tool_047, tool_048, tool_049, tool_050, tool_051, tool_052, tool_053, tool_054,
    tool_055, tool_056, tool_057, tool_058, tool_059, tool_060, tool_061, tool_062, tool_063, tool_064, tool_065,
    tool_066, tool_067, tool_068, tool_069, tool_070, tool_071, tool_072, tool_073, tool_074, tool_075, tool_076,
    tool_077, tool_078, tool_079, tool_080, tool_081, tool_082, tool_083, tool_084, tool_085, tool_086, tool_087,
    tool_088, tool_089, tool_090, tool_091, tool_092, tool_093, tool_094, tool_095, tool_096, tool_097, tool_098,
    tool_099,
);

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::cli::run(server()).await
}
