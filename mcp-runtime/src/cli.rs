//! The command line any server can have, in one call:
//!
//! ```text
//! NAME stdio              serve stdin/stdout (the default)
//! NAME http HOST:PORT     serve Streamable HTTP at http://HOST:PORT/mcp
//! NAME describe           print every tool, prompt and resource as Markdown
//! ```
//!
//! Both transports stop gracefully on SIGTERM or Ctrl-C, giving in-flight requests
//! [`SHUTDOWN_GRACE`] to finish. Logs go through `tracing`: install a subscriber (writing to
//! stderr, since stdout carries the protocol under `stdio`) before calling [`run`].
//!
//! ```no_run
//! /// Say hello.
//! #[mcp::tool]
//! fn hello(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::process::ExitCode {
//!     let server = mcp::Server::builder("hello", "1.0.0").tool::<hello>().build();
//!     mcp::cli::run(server).await
//! }
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use crate::Server;

/// How long in-flight requests may take to finish after SIGTERM or Ctrl-C.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Command {
    /// Serve stdin/stdout.
    Stdio,
    /// Serve Streamable HTTP on this address.
    Http(SocketAddr),
    /// Print the server's items as Markdown.
    Describe,
    /// Print the usage.
    Help,
}

/// Why the command line could not be read; its `Display` is the message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The usage text for the program `program`.
pub fn usage(program: &str) -> String {
    format!(
        "usage: {program} [stdio | http HOST:PORT | describe]\n\
         \n  stdio            serve stdin/stdout (the default)\
         \n  http HOST:PORT   serve Streamable HTTP at http://HOST:PORT/mcp (for example {program} http 127.0.0.1:3931)\
         \n  describe         print every tool, prompt and resource as Markdown\n"
    )
}

impl Command {
    /// Read the arguments after the program name.
    ///
    /// ```
    /// use mcp::cli::Command;
    ///
    /// assert_eq!(Command::parse(Vec::<String>::new()), Ok(Command::Stdio));
    /// assert_eq!(Command::parse(["http", "127.0.0.1:3931"]), Ok(Command::Http("127.0.0.1:3931".parse().unwrap())));
    /// assert!(Command::parse(["http", "localhost"]).is_err());
    /// ```
    pub fn parse<I, S>(args: I) -> Result<Command, UsageError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        match args.as_slice() {
            [] | ["stdio"] => Ok(Command::Stdio),
            ["describe"] => Ok(Command::Describe),
            ["help" | "-h" | "--help"] => Ok(Command::Help),
            ["http", addr] => addr.parse().map(Command::Http).map_err(|_| {
                UsageError(format!("{addr:?} is not a HOST:PORT socket address (for example 127.0.0.1:3931)"))
            }),
            ["http"] => Err(UsageError("http needs an address: http HOST:PORT".to_owned())),
            [mode, ..] if !["stdio", "describe", "http", "help", "-h", "--help"].contains(mode) => {
                Err(UsageError(format!("unknown mode {mode:?}")))
            }
            _ => Err(UsageError(format!("unexpected arguments after {:?}", args[0]))),
        }
    }
}

/// Serve `server` as the process's command line says; returns the exit code (2 for a
/// usage error, 1 when serving fails).
pub async fn run(server: Server) -> ExitCode {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_else(|| server.info().name.clone());
    run_with(server, &program, args).await
}

/// Like [`run`], with the program name and arguments given.
pub async fn run_with<I, S>(server: Server, program: &str, args: I) -> ExitCode
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let command = match Command::parse(args) {
        Ok(command) => command,
        Err(e) => {
            eprintln!("{program}: {e}\n{}", usage(program));
            return ExitCode::from(2);
        }
    };
    let served = match command {
        Command::Help => {
            print!("{}", usage(program));
            return ExitCode::SUCCESS;
        }
        Command::Describe => {
            print!("{}", server.describe_markdown().await);
            return ExitCode::SUCCESS;
        }
        Command::Stdio => {
            crate::serve::stdio(server).grace_period(SHUTDOWN_GRACE).with_graceful_shutdown(terminated()).await
        }
        Command::Http(addr) => match tokio::net::TcpListener::bind(addr).await {
            Ok(listener) => {
                tracing::info!(%addr, "serving Streamable HTTP at http://{addr}/mcp");
                crate::serve::http(listener, server)
                    .grace_period(SHUTDOWN_GRACE)
                    .with_graceful_shutdown(terminated())
                    .await
            }
            Err(e) => Err(e),
        },
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves on SIGTERM (or Ctrl-C): the signal to stop gracefully.
async fn terminated() {
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops gracefully");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("stopping: finishing in-flight requests");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_parses_and_mistakes_say_what_is_wrong() {
        assert_eq!(Command::parse(["stdio"]), Ok(Command::Stdio));
        assert_eq!(Command::parse(["describe"]), Ok(Command::Describe));
        assert_eq!(Command::parse(["--help"]), Ok(Command::Help));
        let addr: SocketAddr = "[::1]:80".parse().expect("address");
        assert_eq!(Command::parse(["http", "[::1]:80"]), Ok(Command::Http(addr)));
        let message = |args: &[&str]| Command::parse(args).map_err(|e| e.to_string()).expect_err("a usage error");
        assert_eq!(message(&["http"]), "http needs an address: http HOST:PORT");
        assert_eq!(
            message(&["http", "localhost"]),
            "\"localhost\" is not a HOST:PORT socket address (for example 127.0.0.1:3931)"
        );
        assert_eq!(message(&["serve"]), "unknown mode \"serve\"");
        assert_eq!(message(&["stdio", "x"]), "unexpected arguments after \"stdio\"");
        assert!(usage("notes").starts_with("usage: notes [stdio | http HOST:PORT | describe]"));
    }
}
