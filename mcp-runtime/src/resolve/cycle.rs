//! Resolver cycles, found at compile time with a message that names them.
//!
//! Every `#[mcp::resolver]` implements [`Links`]: its name, a unique id, and the resolvers
//! it depends on as a type list `(A, (B, ()))`. A constant in each resolver's expansion
//! walks that graph ([`Reach`]) looking for a way back to the resolver, and panics with
//! "resolvers `a` → `b` → `a` form a cycle" when it finds one. The walk is bounded by a
//! depth counted in types ([`Depth`]), so no constant depends on itself (which would be
//! rustc's own "cycle detected" error) and nothing of it runs at run time.

use std::marker::PhantomData;

/// A resolver's place in the dependency graph (implemented by `#[mcp::resolver]`).
pub trait Links {
    /// The function's name, as the user wrote it.
    const NAME: &'static str;
    /// Unique per resolver: its module path, name and line.
    const ID: &'static str;
    /// The resolvers it depends on: `()` or `(Resolver, Rest)`.
    type Deps;
}

/// Depth zero: the walk stops.
pub struct Z;
/// One more level of depth.
pub struct S<D>(PhantomData<D>);

/// How deep the walk goes: cycles of up to this many resolvers are named. (A longer one
/// still fails to compile, when a tool uses it, with the compiler's overflow error.)
pub type Depth = S<S<S<S<S<S<S<S<S<S<S<S<Z>>>>>>>>>>>>;

const MAX: usize = 13;

/// A path of resolvers (names and ids) ending at the resolver looked for; empty if it is not reachable.
#[derive(Clone, Copy)]
pub struct Path {
    names: [&'static str; MAX],
    ids: [&'static str; MAX],
    len: usize,
}

impl Path {
    /// Not reachable.
    pub const NONE: Path = Path { names: [""; MAX], ids: [""; MAX], len: 0 };

    const fn prepend<H: Links>(self) -> Path {
        let (mut names, mut ids) = ([""; MAX], [""; MAX]);
        (names[0], ids[0]) = (H::NAME, H::ID);
        let mut i = 0;
        while i < self.len && i + 1 < MAX {
            (names[i + 1], ids[i + 1]) = (self.names[i], self.ids[i]);
            i += 1;
        }
        Path { names, ids, len: i + 1 }
    }
}

/// A dependency list, searched for the resolver `T` within `D` levels.
pub trait Reach<T, D> {
    /// The way from this list to `T`, if there is one.
    const PATH: Path;
}

impl<T, D> Reach<T, D> for () {
    const PATH: Path = Path::NONE;
}

impl<T, H, Rest> Reach<T, Z> for (H, Rest) {
    const PATH: Path = Path::NONE;
}

impl<T: Links, H: Links, Rest: Reach<T, S<D>>, D> Reach<T, S<D>> for (H, Rest)
where
    H::Deps: Reach<T, D>,
{
    const PATH: Path = {
        let below = <H::Deps as Reach<T, D>>::PATH;
        if same(H::ID, T::ID) {
            Path::NONE.prepend::<H>()
        } else if below.len > 0 {
            below.prepend::<H>()
        } else {
            <Rest as Reach<T, S<D>>>::PATH
        }
    };
}

/// A dependency list's longest chain of resolvers, counted up to `D` levels.
pub trait Longest<D> {
    /// The number of resolvers on the longest chain.
    const LONGEST: usize;
}

impl<D> Longest<D> for () {
    const LONGEST: usize = 0;
}

impl<H, Rest> Longest<Z> for (H, Rest) {
    const LONGEST: usize = 0;
}

impl<H: Links, Rest: Longest<S<D>>, D> Longest<S<D>> for (H, Rest)
where
    H::Deps: Longest<D>,
{
    const LONGEST: usize = {
        let first = 1 + <H::Deps as Longest<D>>::LONGEST;
        let rest = <Rest as Longest<S<D>>>::LONGEST;
        if first > rest { first } else { rest }
    };
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn before(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// Fail compilation if `R` depends on itself. A cycle is reported once, by its resolver
/// with the smallest id.
pub const fn assert_no_cycle<R: Links>(path: Path) {
    if path.len == 0 {
        return;
    }
    let mut i = 0;
    while i < path.len {
        if before(path.ids[i], R::ID) {
            return;
        }
        i += 1;
    }
    let mut message = Message { bytes: [0; 1024], len: 0 };
    message.push("resolvers `");
    message.push(R::NAME);
    let mut i = 0;
    while i < path.len {
        message.push("` \u{2192} `");
        message.push(path.names[i]);
        i += 1;
    }
    message.push(
        "` form a cycle: a resolver cannot depend on itself, directly or through others; \
         remove one of these `Resolve<..>` parameters",
    );
    let (bytes, _) = message.bytes.split_at(message.len);
    match std::str::from_utf8(bytes) {
        Ok(text) => panic!("{}", text),
        Err(_) => panic!("resolvers form a cycle"),
    }
}

/// A message built at compile time (long names are cut at the buffer's end).
struct Message {
    bytes: [u8; 1024],
    len: usize,
}

impl Message {
    const fn push(&mut self, text: &str) {
        let text = text.as_bytes();
        if self.len + text.len() > self.bytes.len() {
            return;
        }
        let mut i = 0;
        while i < text.len() {
            self.bytes[self.len] = text[i];
            self.len += 1;
            i += 1;
        }
    }
}
