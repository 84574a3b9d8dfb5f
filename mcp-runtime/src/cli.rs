//! The command line any server can have, in one call:
//!
//! ```text
//! NAME stdio              serve stdin/stdout (the default)
//! NAME http HOST:PORT     serve Streamable HTTP at http://HOST:PORT/mcp
//!      [--allow-host NAME]... [--public-unauthenticated]
//!      [--tls-cert FILE --tls-key FILE]   serve https:// instead (the `tls` feature)
//! NAME describe           print every tool, prompt and resource as Markdown
//! ```
//!
//! A non-loopback `HOST` (`0.0.0.0`, `[::]`, a LAN address) needs `--allow-host NAME` for
//! each host name clients use (the `Host`/`Origin` check, against DNS rebinding), or
//! `--public-unauthenticated` to serve anyone on purpose; without either, the command
//! refuses to start.
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
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::Server;
use crate::serve::http::HttpConfig;

/// How long in-flight requests may take to finish after SIGTERM or Ctrl-C.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Command {
    /// Serve stdin/stdout.
    Stdio,
    /// Serve Streamable HTTP on this address, with these options.
    Http(HttpArgs),
    /// Print the server's items as Markdown.
    Describe,
    /// Print the usage.
    Help,
}

/// The address and options of `http HOST:PORT [--allow-host NAME]... [--public-unauthenticated]`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpArgs {
    /// Where to listen.
    pub addr: SocketAddr,
    /// `--allow-host NAME`: the host names accepted in `Host` and `Origin` (replacing the
    /// loopback names); see [`HttpConfig::allowed_hosts`].
    pub allowed_hosts: Vec<String>,
    /// `--public-unauthenticated`: see [`HttpConfig::allow_public_unauthenticated`].
    pub public_unauthenticated: bool,
    /// `--tls-cert FILE --tls-key FILE`: the PEM certificate chain and private key to
    /// serve `https://` with (the `tls` feature); see `HttpConfig::tls`.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// `--workers N`: serve connections on N threads of their own, each with a
    /// single-threaded runtime (see `serve::http::Serve::workers`); `0` serves them on
    /// the program's runtime.
    pub workers: usize,
}

impl HttpArgs {
    /// `addr` with no options.
    pub fn new(addr: SocketAddr) -> Self {
        HttpArgs { addr, allowed_hosts: Vec::new(), public_unauthenticated: false, tls: None, workers: 0 }
    }

    /// The transport's configuration these options ask for.
    pub fn config(&self) -> HttpConfig {
        self.apply(HttpConfig::default())
    }

    /// `config` with these options applied on top.
    fn apply(&self, mut config: HttpConfig) -> HttpConfig {
        if !self.allowed_hosts.is_empty() {
            config = config.allowed_hosts(self.allowed_hosts.iter().cloned());
        }
        if self.public_unauthenticated {
            config = config.allow_public_unauthenticated();
        }
        config
    }

    /// Read `HOST:PORT` and the options after it; a non-loopback address needs one of them.
    fn parse(addr: &str, options: &[&str]) -> Result<Self, UsageError> {
        let addr: SocketAddr = addr.parse().map_err(|_| {
            UsageError(format!("{addr:?} is not a HOST:PORT socket address (for example 127.0.0.1:3931)"))
        })?;
        let mut args = HttpArgs::new(addr);
        let mut options = options.iter();
        let (mut tls_cert, mut tls_key) = (None, None);
        while let Some(option) = options.next() {
            match *option {
                "--allow-host" => match options.next() {
                    Some(name) if !name.is_empty() && !name.starts_with("--") => {
                        args.allowed_hosts.push((*name).to_owned());
                    }
                    _ => return Err(UsageError("--allow-host needs a host name: --allow-host NAME".to_owned())),
                },
                "--public-unauthenticated" => args.public_unauthenticated = true,
                "--workers" => {
                    args.workers = match options.next().map(|n| n.parse::<usize>()) {
                        Some(Ok(n)) if n <= MAX_WORKERS => n,
                        _ => {
                            return Err(UsageError(format!(
                                "--workers needs a number of threads from 0 to {MAX_WORKERS}: --workers N"
                            )));
                        }
                    }
                }
                "--tls-cert" => tls_cert = Some(file_value(options.next(), "--tls-cert")?),
                "--tls-key" => tls_key = Some(file_value(options.next(), "--tls-key")?),
                other => return Err(UsageError(format!("unknown http option {other:?}"))),
            }
        }
        args.tls = match (tls_cert, tls_key) {
            (None, None) => None,
            (Some(_), None) | (None, Some(_)) => {
                return Err(UsageError(
                    "--tls-cert and --tls-key go together: --tls-cert FILE --tls-key FILE".to_owned(),
                ));
            }
            (Some(_), Some(_)) if !cfg!(feature = "tls") => {
                return Err(UsageError(
                    "--tls-cert needs the `tls` feature of mcp-runtime; this program was built without it".to_owned(),
                ));
            }
            (Some(cert), Some(key)) => Some((cert, key)),
        };
        if !addr.ip().to_canonical().is_loopback() && args.allowed_hosts.is_empty() && !args.public_unauthenticated {
            return Err(UsageError(format!(
                "{addr} is not a loopback address: name the hosts clients use with --allow-host NAME, \
                 or pass --public-unauthenticated to serve anyone on the network without authentication"
            )));
        }
        Ok(args)
    }
}

/// The file name after `flag`.
fn file_value(value: Option<&&str>, flag: &str) -> Result<PathBuf, UsageError> {
    match value {
        Some(file) if !file.is_empty() && !file.starts_with("--") => Ok(PathBuf::from(file)),
        _ => Err(UsageError(format!("{flag} needs a file name: {flag} FILE"))),
    }
}

impl From<SocketAddr> for HttpArgs {
    fn from(addr: SocketAddr) -> Self {
        HttpArgs::new(addr)
    }
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

/// The most `--workers` threads the command line accepts.
pub const MAX_WORKERS: usize = 1024;

/// The usage text for the program `program`.
pub fn usage(program: &str) -> String {
    format!(
        "usage: {program} [stdio | http HOST:PORT [OPTIONS] | describe]\n\
         \n  stdio            serve stdin/stdout (the default)\
         \n  http HOST:PORT   serve Streamable HTTP at http://HOST:PORT/mcp (for example {program} http 127.0.0.1:3931)\
         \n  describe         print every tool, prompt and resource as Markdown\n\
         \nhttp options (a non-loopback HOST such as 0.0.0.0 needs one of them):\
         \n  --allow-host NAME          accept requests whose Host/Origin names NAME (repeatable; replaces the\
         \n                             loopback names localhost, 127.0.0.1 and [::1])\
         \n  --public-unauthenticated   serve a non-loopback address without allowed hosts or authentication\
         \n  --tls-cert FILE --tls-key FILE\
         \n                             serve https:// with this PEM certificate chain and private key\
         \n  --workers N                serve connections on N threads, each with a single-threaded runtime\
         \n                             (0: on the program's runtime, the default)\n"
    )
}

impl Command {
    /// Read the arguments after the program name.
    ///
    /// ```
    /// use mcp::cli::Command;
    ///
    /// assert_eq!(Command::parse(Vec::<String>::new()), Ok(Command::Stdio));
    /// assert_eq!(Command::parse(["http", "127.0.0.1:3931"]), Ok(Command::Http("127.0.0.1:3931".parse::<std::net::SocketAddr>().unwrap().into())));
    /// assert!(Command::parse(["http", "localhost"]).is_err());
    /// // A public address needs the host names clients use (or an explicit opt-in).
    /// assert!(Command::parse(["http", "0.0.0.0:3931"]).is_err());
    /// assert!(Command::parse(["http", "0.0.0.0:3931", "--allow-host", "mcp.example.com"]).is_ok());
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
            ["http", addr, options @ ..] => HttpArgs::parse(addr, options).map(Command::Http),
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

/// Like [`run`], serving `http` with `config` (a token verifier, protected resource
/// metadata, limits) as the base that the command line's http options are applied to.
/// `stdio` and `describe` ignore it.
///
/// ```no_run
/// use mcp::auth::{AuthInfo, StaticTokenVerifier};
/// use mcp::serve::http::HttpConfig;
///
/// #[tokio::main]
/// async fn main() -> std::process::ExitCode {
///     let server = mcp::Server::builder("hello", "1.0.0").build();
///     let verifier = StaticTokenVerifier::new([("s3cret".to_owned(), AuthInfo::default())]);
///     mcp::cli::run_with_config(server, HttpConfig::default().token_verifier(verifier)).await
/// }
/// ```
pub async fn run_with_config(server: Server, config: HttpConfig) -> ExitCode {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_else(|| server.info().name.clone());
    run_command(server, &program, args, config).await
}

/// Like [`run`], with the program name and arguments given.
pub async fn run_with<I, S>(server: Server, program: &str, args: I) -> ExitCode
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    run_command(server, program, args, HttpConfig::default()).await
}

async fn run_command<I, S>(server: Server, program: &str, args: I, config: HttpConfig) -> ExitCode
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
        Command::Http(args) => match tokio::net::TcpListener::bind(args.addr).await {
            Ok(listener) => {
                let addr = args.addr;
                let config = match with_tls(args.apply(config), &args) {
                    Ok(config) => config,
                    Err(e) => {
                        eprintln!("{program}: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                let scheme = if args.tls.is_some() { "https" } else { "http" };
                tracing::info!(%addr, "serving Streamable HTTP at {scheme}://{addr}/mcp");
                crate::serve::http(listener, server)
                    .config(config)
                    .workers(args.workers)
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

/// `config` serving TLS with the files of `--tls-cert` and `--tls-key`, if given.
#[cfg(feature = "tls")]
fn with_tls(config: HttpConfig, args: &HttpArgs) -> std::io::Result<HttpConfig> {
    match &args.tls {
        Some((cert, key)) => Ok(config.tls(crate::tls::ServerTlsConfig::from_pem_files(cert, key)?)),
        None => Ok(config),
    }
}

/// Without `tls` the flags are refused when parsed.
#[cfg(not(feature = "tls"))]
#[allow(clippy::unnecessary_wraps)]
fn with_tls(config: HttpConfig, _args: &HttpArgs) -> std::io::Result<HttpConfig> {
    Ok(config)
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
        assert_eq!(Command::parse(["http", "[::1]:80"]), Ok(Command::Http(addr.into())));
        let message = |args: &[&str]| Command::parse(args).map_err(|e| e.to_string()).expect_err("a usage error");
        assert_eq!(message(&["http"]), "http needs an address: http HOST:PORT");
        assert_eq!(
            message(&["http", "localhost"]),
            "\"localhost\" is not a HOST:PORT socket address (for example 127.0.0.1:3931)"
        );
        assert_eq!(message(&["serve"]), "unknown mode \"serve\"");
        assert_eq!(message(&["stdio", "x"]), "unexpected arguments after \"stdio\"");
        assert!(usage("notes").starts_with("usage: notes [stdio | http HOST:PORT [OPTIONS] | describe]"));
    }

    #[test]
    fn workers_take_a_bounded_count() {
        let workers = |args: &[&str]| match Command::parse(args) {
            Ok(Command::Http(args)) => Ok(args.workers),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(workers(&["http", "127.0.0.1:80"]), Ok(0));
        assert_eq!(workers(&["http", "127.0.0.1:80", "--workers", "2"]), Ok(2));
        let refused = Err("--workers needs a number of threads from 0 to 1024: --workers N".to_owned());
        for bad in [&["--workers"][..], &["--workers", "two"], &["--workers", "-1"], &["--workers", "1025"]] {
            let args: Vec<&str> = ["http", "127.0.0.1:80"].iter().chain(bad).copied().collect();
            assert_eq!(workers(&args), refused, "{bad:?}");
        }
    }

    #[test]
    fn a_public_address_needs_allowed_hosts_or_the_opt_in() {
        let message = |args: &[&str]| Command::parse(args).map_err(|e| e.to_string()).expect_err("a usage error");
        for addr in ["0.0.0.0:80", "[::]:80", "192.168.1.20:80"] {
            let refused = message(&["http", addr]);
            assert!(refused.contains("--allow-host NAME") && refused.contains("--public-unauthenticated"), "{refused}");
        }
        let Ok(Command::Http(args)) =
            Command::parse(["http", "0.0.0.0:80", "--allow-host", "a.example", "--allow-host", "b.example"])
        else {
            panic!("allowed hosts make a public address acceptable");
        };
        assert_eq!(args.allowed_hosts, ["a.example", "b.example"]);
        assert!(!args.public_unauthenticated);
        let Ok(Command::Http(args)) = Command::parse(["http", "[::]:80", "--public-unauthenticated"]) else {
            panic!("the opt-in makes a public address acceptable");
        };
        assert!(args.public_unauthenticated && args.allowed_hosts.is_empty());
        assert_eq!(
            message(&["http", "0.0.0.0:80", "--allow-host"]),
            "--allow-host needs a host name: --allow-host NAME"
        );
        assert_eq!(message(&["http", "127.0.0.1:80", "--verbose"]), "unknown http option \"--verbose\"");
        let tls = |args: &[&str]| match Command::parse(args) {
            Ok(Command::Http(args)) => Ok(args.tls),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(tls(&["http", "127.0.0.1:80"]), Ok(None));
        assert_eq!(
            tls(&["http", "127.0.0.1:80", "--tls-cert", "c.pem"]),
            Err("--tls-cert and --tls-key go together: --tls-cert FILE --tls-key FILE".to_owned())
        );
        assert_eq!(
            tls(&["http", "127.0.0.1:80", "--tls-key"]),
            Err("--tls-key needs a file name: --tls-key FILE".to_owned())
        );
        let both = tls(&["http", "127.0.0.1:80", "--tls-cert", "c.pem", "--tls-key", "k.pem"]);
        if cfg!(feature = "tls") {
            assert_eq!(both, Ok(Some((PathBuf::from("c.pem"), PathBuf::from("k.pem")))));
        } else {
            assert!(both.is_err_and(|e| e.contains("`tls` feature")));
        }
        // Loopback needs no option; options are accepted there too.
        assert!(Command::parse(["http", "127.0.0.1:80", "--allow-host", "localhost"]).is_ok());
    }
}
