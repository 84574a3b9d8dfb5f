//! Where tokens and client registrations are kept between requests (and, with a file,
//! between runs): keyed by the authorization server's issuer, tokens also by resource,
//! so that nothing issued by or registered at one server is presented to another.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::error::{OAuthError, OAuthErrorKind};
use super::registration::ClientCredentials;
use super::token::TokenSet;

/// Keeps tokens per (issuer, resource) and client credentials per issuer.
///
/// Called on the request path: implementations should be quick (memory, a small file,
/// the OS keychain). Errors are reported as [`OAuthErrorKind::Store`].
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens issued by `issuer` for `resource`.
    fn tokens(&self, issuer: &str, resource: &str) -> Result<Option<TokenSet>, OAuthError>;
    /// Keeps (or with `None` forgets) the tokens issued by `issuer` for `resource`.
    fn set_tokens(&self, issuer: &str, resource: &str, tokens: Option<TokenSet>) -> Result<(), OAuthError>;
    /// The client's registration at `issuer`.
    fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>, OAuthError>;
    /// Keeps the client's registration at `issuer`.
    fn set_client(&self, issuer: &str, credentials: ClientCredentials) -> Result<(), OAuthError>;
}

/// What a store holds.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    clients: BTreeMap<String, ClientCredentials>,
    /// Keyed by `issuer` and `resource` joined by a space (neither holds one).
    #[serde(default)]
    tokens: BTreeMap<String, TokenSet>,
}

fn key(issuer: &str, resource: &str) -> String {
    format!("{issuer} {resource}")
}

impl Contents {
    fn set_tokens(&mut self, issuer: &str, resource: &str, tokens: Option<TokenSet>) {
        match tokens {
            Some(tokens) => self.tokens.insert(key(issuer, resource), tokens),
            None => self.tokens.remove(&key(issuer, resource)),
        };
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The default store: memory, for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    contents: Mutex<Contents>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn tokens(&self, issuer: &str, resource: &str) -> Result<Option<TokenSet>, OAuthError> {
        Ok(lock(&self.contents).tokens.get(&key(issuer, resource)).cloned())
    }

    fn set_tokens(&self, issuer: &str, resource: &str, tokens: Option<TokenSet>) -> Result<(), OAuthError> {
        lock(&self.contents).set_tokens(issuer, resource, tokens);
        Ok(())
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>, OAuthError> {
        Ok(lock(&self.contents).clients.get(issuer).cloned())
    }

    fn set_client(&self, issuer: &str, credentials: ClientCredentials) -> Result<(), OAuthError> {
        lock(&self.contents).clients.insert(issuer.to_owned(), credentials);
        Ok(())
    }
}

/// A JSON file, for command-line tools that should not ask the user again on every run.
///
/// Every change rewrites the file atomically (a temporary file with a random name in the
/// same directory, then renamed over it), so a crash never leaves half a file. On unix the
/// file is created with mode 0600 (readable and writable by its owner only); elsewhere it
/// gets the directory's default permissions (on Windows, the access list inherited from
/// the directory), so keep it in a directory only its user can read.
///
/// Each read and each read-modify-write holds an exclusive advisory lock on a companion
/// file, `.NAME.lock` next to the store (created once, never removed), so several stores
/// on one path, in one process or in several, do not lose each other's updates. Advisory
/// means other programs that write the file without taking the lock are not held back.
///
/// ```
/// use mcp::client::oauth::{ClientCredentials, FileTokenStore, TokenSet, TokenStore};
///
/// let dir = std::env::temp_dir().join(format!("mcp-doc-store-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let store = FileTokenStore::new(dir.join("tokens.json"));
/// store.set_tokens("https://as.example", "https://mcp.example/mcp", Some(TokenSet::bearer("t"))).unwrap();
/// let again = FileTokenStore::new(dir.join("tokens.json"));
/// assert_eq!(again.tokens("https://as.example", "https://mcp.example/mcp").unwrap(), Some(TokenSet::bearer("t")));
/// assert_eq!(again.tokens("https://other.example", "https://mcp.example/mcp").unwrap(), None);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    guard: Mutex<()>,
}

impl FileTokenStore {
    /// A store kept in `path` (created on the first write).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore { path: path.into(), guard: Mutex::new(()) }
    }

    fn error(&self, what: &str, e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> OAuthError {
        OAuthError::with_source(OAuthErrorKind::Store, format!("{what} {}", self.path.display()), e)
    }

    fn read(&self) -> Result<Contents, OAuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.error("cannot parse the token store", e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Contents::default()),
            Err(e) => Err(self.error("cannot read the token store", e)),
        }
    }

    fn write(&self, contents: &Contents) -> Result<(), OAuthError> {
        let bytes = serde_json::to_vec_pretty(contents).map_err(|e| self.error("cannot encode the token store", e))?;
        let suffix = super::pkce::random_b64(12)?;
        let temp = self.path.with_file_name(format!(".{}.{suffix}.tmp", self.file_name()));
        // Only a file this call created is removed again.
        let file = create_private(&temp).map_err(|e| self.error("cannot write the token store", e))?;
        let written = write_all_synced(file, &bytes).map_err(|e| self.error("cannot write the token store", e));
        let replaced = written.and_then(|()| {
            std::fs::rename(&temp, &self.path).map_err(|e| self.error("cannot replace the token store", e))
        });
        if replaced.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        replaced
    }

    fn file_name(&self) -> String {
        self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Holds the store's advisory lock (on `.NAME.lock`) until the returned file drops; the
    /// in-process guard must be held already.
    fn file_lock(&self) -> Result<std::fs::File, OAuthError> {
        let path = self.path.with_file_name(format!(".{}.lock", self.file_name()));
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(|e| self.error("cannot open the lock file of the token store", e))?;
        file.lock().map_err(|e| self.error("cannot lock the token store", e))?;
        Ok(file)
    }

    fn update(&self, change: impl FnOnce(&mut Contents)) -> Result<(), OAuthError> {
        let _guard = lock(&self.guard);
        let _file_lock = self.file_lock()?;
        let mut contents = self.read()?;
        change(&mut contents);
        self.write(&contents)
    }

    fn read_locked(&self) -> Result<Contents, OAuthError> {
        let _guard = lock(&self.guard);
        let _file_lock = self.file_lock()?;
        self.read()
    }
}

/// Creates a new file at `path` that only its owner may read or write (on unix).
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn write_all_synced(mut file: std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

impl TokenStore for FileTokenStore {
    fn tokens(&self, issuer: &str, resource: &str) -> Result<Option<TokenSet>, OAuthError> {
        Ok(self.read_locked()?.tokens.remove(&key(issuer, resource)))
    }

    fn set_tokens(&self, issuer: &str, resource: &str, tokens: Option<TokenSet>) -> Result<(), OAuthError> {
        self.update(|c| c.set_tokens(issuer, resource, tokens))
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>, OAuthError> {
        Ok(self.read_locked()?.clients.remove(issuer))
    }

    fn set_client(&self, issuer: &str, credentials: ClientCredentials) -> Result<(), OAuthError> {
        self.update(|c| {
            c.clients.insert(issuer.to_owned(), credentials);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_keyed_by_issuer_and_resource() {
        let store = MemoryTokenStore::new();
        store.set_tokens("https://as1", "https://r/mcp", Some(TokenSet::bearer("a"))).expect("test fixture");
        store.set_client("https://as1", ClientCredentials::public("c1")).expect("test fixture");
        assert_eq!(store.tokens("https://as1", "https://r/mcp").expect("test fixture"), Some(TokenSet::bearer("a")));
        assert_eq!(store.tokens("https://as2", "https://r/mcp").expect("test fixture"), None);
        assert_eq!(store.tokens("https://as1", "https://r/other").expect("test fixture"), None);
        assert_eq!(store.client("https://as2").expect("test fixture"), None);
        store.set_tokens("https://as1", "https://r/mcp", None).expect("test fixture");
        assert_eq!(store.tokens("https://as1", "https://r/mcp").expect("test fixture"), None);
    }

    #[test]
    fn the_file_is_private_and_replaced_atomically() {
        let dir = std::env::temp_dir().join(format!("mcp-store-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("test fixture");
        let path = dir.join("tokens.json");
        let store = FileTokenStore::new(&path);
        store.set_client("https://as1", ClientCredentials::confidential("c1", "s1")).expect("test fixture");
        store.set_tokens("https://as1", "https://r/mcp", Some(TokenSet::bearer("a"))).expect("test fixture");
        let again = FileTokenStore::new(&path);
        assert_eq!(
            again.client("https://as1").expect("test fixture"),
            Some(ClientCredentials::confidential("c1", "s1"))
        );
        assert_eq!(again.tokens("https://as1", "https://r/mcp").expect("test fixture"), Some(TokenSet::bearer("a")));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).expect("test fixture").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let mut leftovers: Vec<_> = std::fs::read_dir(&dir)
            .expect("test fixture")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        leftovers.sort();
        assert_eq!(leftovers, [".tokens.json.lock", "tokens.json"], "only the store (and its lock file) remains");
        std::fs::write(&path, b"not json").expect("test fixture");
        assert_eq!(again.client("https://as1").expect_err("must be refused").kind(), OAuthErrorKind::Store);
        std::fs::remove_dir_all(&dir).expect("test fixture");
    }

    #[test]
    fn two_stores_on_one_path_lose_no_updates() {
        let dir = std::env::temp_dir().join(format!("mcp-store-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("test fixture");
        let path = dir.join("tokens.json");
        let writers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|who| {
                let store = FileTokenStore::new(&path);
                std::thread::spawn(move || {
                    for i in 0..25 {
                        let resource = format!("https://r/{who}{i}");
                        store
                            .set_tokens("https://as1", &resource, Some(TokenSet::bearer(who)))
                            .expect("a write succeeds");
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().expect("the writer finishes");
        }
        let store = FileTokenStore::new(&path);
        for who in ["a", "b"] {
            for i in 0..25 {
                let resource = format!("https://r/{who}{i}");
                assert_eq!(store.tokens("https://as1", &resource).expect("test fixture"), Some(TokenSet::bearer(who)));
            }
        }
        let temps = std::fs::read_dir(&dir)
            .expect("test fixture")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .count();
        assert_eq!(temps, 0, "no temporary file is left behind");
        std::fs::remove_dir_all(&dir).expect("test fixture");
    }
}
