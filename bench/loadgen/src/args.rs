//! The command line (parsed with clap) and the run's configuration checked from it.

use std::time::Duration;

use clap::{Parser, ValueEnum};
use serde_json::Value;

/// The protocol era spoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Era {
    /// 2026-07-28: no handshake, `_meta` on every request.
    Modern,
    /// 2025-11-25: `initialize` first; over HTTP one shared session.
    Legacy,
}

/// What one call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// One `tools/call`.
    Plain,
    /// A `tools/call` that asks one elicitation, answered (multi round-trip).
    Mrtr,
    /// A task-augmented `tools/call` (the tasks extension declared), answered with a task,
    /// then `tasks/get` until the task has its result.
    Task,
}

/// The transport to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Transport {
    /// Spawn `--command` and talk over its stdin/stdout.
    Stdio,
    /// POST to `--url`.
    Http,
}

/// A load generator for any MCP server (see the crate docs for the details).
#[derive(Debug, Parser)]
#[command(name = "loadgen", version)]
pub(crate) struct Args {
    /// The transport.
    #[arg(long, value_enum)]
    transport: Transport,
    /// The server's command and arguments (stdio), run as `sh -c "exec CMD"`.
    #[arg(long, required_if_eq("transport", "stdio"), conflicts_with_all = ["url", "pid"])]
    command: Option<String>,
    /// The endpoint, `http://HOST:PORT/PATH` (http).
    #[arg(long, required_if_eq("transport", "http"))]
    url: Option<http::Uri>,
    /// The server's process id, for its CPU time and peak RSS (http).
    #[arg(long, requires = "url")]
    pid: Option<u32>,
    /// The protocol era.
    #[arg(long, value_enum, default_value_t = Era::Modern)]
    era: Era,
    /// Plain calls or multi round-trip calls.
    #[arg(long, value_enum, default_value_t = Mode::Plain)]
    mode: Mode,
    /// Calls in flight.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    concurrency: usize,
    /// Measured seconds.
    #[arg(long, default_value = "10", value_parser = seconds)]
    duration: Duration,
    /// Warm-up seconds before the measured window.
    #[arg(long, default_value = "1", value_parser = seconds)]
    warmup: Duration,
    /// The run's label in the output (default: the command's program name, or the URL).
    #[arg(long)]
    label: Option<String>,
    /// The tool called (default: `echo` in plain mode, `provision` in mrtr mode).
    #[arg(long)]
    tool: Option<String>,
    /// The tool's arguments, a JSON object (default: `{"text":"hello"}` in plain mode,
    /// `{"name":"orders"}` in mrtr mode).
    #[arg(long, value_parser = json_object)]
    args: Option<serde_json::Map<String, Value>>,
    /// The content of the accepted elicitation, a JSON object.
    #[arg(long, default_value = r#"{"region":"eu-west-1"}"#, value_parser = json_object)]
    answer: serde_json::Map<String, Value>,
    /// Text a successful result must contain.
    #[arg(long)]
    expect: Option<String>,
    /// loadgen's own runtime threads.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    threads: usize,
    /// A file holding an access token, sent as `Authorization: Bearer` on every request
    /// (http). Never printed.
    #[arg(long)]
    bearer_file: Option<std::path::PathBuf>,
}

/// An access token: kept out of `Debug` output, logs and errors.
pub(crate) struct Bearer(pub(crate) String);

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Bearer(..)")
    }
}

/// The token in `path`: its only line (surrounding whitespace trimmed), without a
/// `Bearer ` prefix. Errors name the file, never its content.
fn read_bearer(path: &std::path::Path) -> Result<Bearer, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read --bearer-file {}: {e}", path.display()))?;
    let token = text.trim();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err(format!("--bearer-file {} must hold one token (no spaces, no scheme)", path.display()));
    }
    if http::HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
        return Err(format!("--bearer-file {} holds characters a header cannot carry", path.display()));
    }
    Ok(Bearer(token.to_owned()))
}

/// Where the server is.
#[derive(Debug)]
pub(crate) enum Target {
    Stdio { command: String },
    Http { url: http::Uri, pid: Option<u32>, bearer: Option<Bearer> },
}

/// A checked configuration.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) target: Target,
    pub(crate) era: Era,
    pub(crate) mode: Mode,
    pub(crate) concurrency: usize,
    pub(crate) duration: Duration,
    pub(crate) warmup: Duration,
    pub(crate) label: String,
    pub(crate) tool: String,
    pub(crate) args: serde_json::Map<String, Value>,
    pub(crate) answer: serde_json::Map<String, Value>,
    pub(crate) expect: Option<String>,
    pub(crate) threads: usize,
}

impl TryFrom<Args> for Config {
    type Error = String;

    /// The checks clap's attributes cannot express.
    fn try_from(args: Args) -> Result<Config, String> {
        if args.transport == Transport::Stdio && args.bearer_file.is_some() {
            return Err("--bearer-file goes with --transport http".into());
        }
        let target = match (args.transport, args.command, args.url) {
            (Transport::Stdio, Some(command), _) if !command.trim().is_empty() => Target::Stdio { command },
            (Transport::Stdio, _, _) => return Err("--transport stdio needs a non-empty --command".into()),
            (Transport::Http, Some(_), _) => return Err("--command goes with --transport stdio".into()),
            (Transport::Http, None, Some(url)) => {
                if url.scheme_str() != Some("http") || url.authority().is_none() {
                    return Err(format!("--url must be http://HOST:PORT/PATH, not {url}"));
                }
                let bearer = args.bearer_file.as_deref().map(read_bearer).transpose()?;
                Target::Http { url, pid: args.pid, bearer }
            }
            (Transport::Http, None, None) => return Err("--transport http needs --url".into()),
        };
        if args.mode == Mode::Task && args.era == Era::Legacy {
            return Err("--mode task needs --era modern (2025-11-25 has no tasks extension)".into());
        }
        if args.duration.is_zero() {
            return Err("--duration must be more than 0".into());
        }
        let (default_tool, default_args) = match args.mode {
            Mode::Plain | Mode::Task => ("echo", serde_json::json!({"text": "hello"})),
            Mode::Mrtr => ("provision", serde_json::json!({"name": "orders"})),
        };
        let default_args = match default_args {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let label = args.label.unwrap_or_else(|| match &target {
            Target::Stdio { command } => {
                let program = command.split_whitespace().next().unwrap_or("server");
                program.rsplit('/').next().unwrap_or(program).to_owned()
            }
            Target::Http { url, .. } => url.to_string(),
        });
        Ok(Config {
            target,
            era: args.era,
            mode: args.mode,
            concurrency: args.concurrency,
            duration: args.duration,
            warmup: args.warmup,
            label,
            tool: args.tool.unwrap_or_else(|| default_tool.to_owned()),
            args: args.args.unwrap_or(default_args),
            answer: args.answer,
            expect: args.expect,
            threads: args.threads,
        })
    }
}

fn seconds(value: &str) -> Result<Duration, String> {
    match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("a number of seconds, not {value:?}")),
    }
}

fn json_object(value: &str) -> Result<serde_json::Map<String, Value>, String> {
    match serde_json::from_str(value) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(format!("a JSON object, not {value:?}")),
    }
}

fn at_least_one(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("a whole number of at least 1, not {value:?}")),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::{Args, Config, Era, Mode, Target};

    fn config(argv: &[&str]) -> Result<Config, String> {
        let args =
            Args::try_parse_from(std::iter::once("loadgen").chain(argv.iter().copied())).map_err(|e| e.to_string())?;
        Config::try_from(args)
    }

    #[test]
    fn the_scripts_command_lines_parse() {
        let bench = config(&[
            "--transport",
            "stdio",
            "--command",
            "target/release/echo stdio",
            "--era",
            "legacy",
            "--mode",
            "plain",
            "--concurrency",
            "16",
            "--duration",
            "5",
            "--warmup",
            "2",
            "--label",
            "ours",
            "--expect",
            "hello",
        ]);
        let bench = bench.unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(&bench.target, Target::Stdio { command } if command == "target/release/echo stdio"));
        assert_eq!(
            (bench.era, bench.mode, bench.concurrency, bench.label.as_str()),
            (Era::Legacy, Mode::Plain, 16, "ours")
        );
        assert_eq!(bench.tool, "echo");

        let soak = config(&[
            "--transport",
            "http",
            "--url",
            "http://127.0.0.1:8000/mcp",
            "--pid",
            "42",
            "--concurrency",
            "32",
            "--warmup",
            "0",
            "--duration",
            "15",
            "--mode",
            "mrtr",
            "--tool",
            "t",
            "--args",
            "{}",
            "--answer",
            r#"{"name":"soak"}"#,
            "--expect",
            "Hello, soak!",
            "--label",
            "mrtr",
        ]);
        let soak = soak.unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(&soak.target, Target::Http { pid: Some(42), .. }));
        assert!(soak.warmup.is_zero());
        assert!(soak.args.is_empty());
        assert_eq!(soak.answer.get("name").and_then(|v| v.as_str()), Some("soak"));
        assert!(config(&["--transport=stdio", "--command=x"]).is_ok(), "--flag=value works too");
    }

    #[test]
    fn bad_combinations_are_refused() {
        for argv in [
            &["--transport", "stdio"][..],
            &["--transport", "stdio", "--command", " "],
            &["--transport", "stdio", "--command", "x", "--url", "http://a:1/"],
            &["--transport", "http"],
            &["--transport", "http", "--url", "https://a:1/"],
            &["--transport", "http", "--url", "http://a:1/", "--command", "x"],
            &["--transport", "http", "--url", "http://a:1/", "--duration", "0"],
            &["--transport", "http", "--url", "http://a:1/", "--concurrency", "0"],
            &["--transport", "http", "--url", "http://a:1/", "--args", "[1]"],
            &["--transport", "http", "--url", "http://a:1/", "--warmup", "-1"],
            &["--transport", "http", "--url", "http://a:1/", "--mode", "task", "--era", "legacy"],
            &["--transport", "stdio", "--command", "x", "--bearer-file", "/dev/null"],
            &["--transport", "http", "--url", "http://a:1/", "--bearer-file", "/nonexistent/token"],
        ] {
            assert!(config(argv).is_err(), "{argv:?} was accepted");
        }
    }

    #[test]
    fn the_bearer_file_is_read_and_never_shown() {
        let dir = std::env::temp_dir().join(format!("loadgen-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let file = dir.join("token");
        let path = file.to_str().expect("a UTF-8 path");
        std::fs::write(&file, "eyJ.secret-token.sig\n").expect("the token file");
        let task = config(&["--transport", "http", "--url", "http://a:1/mcp", "--mode", "task", "--bearer-file", path])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((task.mode, task.tool.as_str()), (Mode::Task, "echo"));
        let Target::Http { bearer: Some(bearer), .. } = &task.target else { panic!("no bearer: {:?}", task.target) };
        assert_eq!(bearer.0, "eyJ.secret-token.sig");
        assert!(!format!("{task:?}").contains("secret"), "the token is in the Debug output");

        for bad in ["", "  \n", "Bearer eyJ.secret-token.sig"] {
            std::fs::write(&file, bad).expect("the token file");
            let error = config(&["--transport", "http", "--url", "http://a:1/mcp", "--bearer-file", path])
                .expect_err("a bad token file");
            assert!(error.contains("--bearer-file") && !error.contains("secret"), "{error}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
