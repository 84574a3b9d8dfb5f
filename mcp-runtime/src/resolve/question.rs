//! The three questions a resolver can ask: [`Elicit`], [`Sample`] and [`ListRoots`].

use std::cell::RefCell;

use serde::Deserialize as _;
use serde_json::Value;

use super::form::{ElicitForm, content_matches};
use crate::protocol::recent::Recent;
use crate::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, InputRequest, ListRootsResult, SamplingMessage,
};

/// Which capability a question needs, and how its answers look.
///
/// # Examples
///
/// ```
/// use mcp::resolve::{Elicit, ListRoots, Question, QuestionKind, Sample};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Confirm {
///     ok: bool,
/// }
///
/// assert_eq!(<Elicit<Confirm> as Question>::KIND, QuestionKind::Elicit);
/// assert_eq!(Sample::KIND, QuestionKind::Sample);
/// assert_eq!(ListRoots::KIND, QuestionKind::ListRoots);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuestionKind {
    /// `elicitation/create` (form mode).
    Elicit,
    /// `sampling/createMessage`.
    Sample,
    /// `roots/list`.
    ListRoots,
}

/// A resolver's return type that may ask the client: [`Elicit<T>`], [`Sample`] or
/// [`ListRoots`].
///
/// # Examples
///
/// The framework renders a resolver's question for the wire, then decodes the answer:
///
/// ```
/// use mcp::resolve::{Question, Rendered, Sample};
/// use serde_json::json;
///
/// let Rendered::Ask(request) = Sample::user("Name a colour.", 10).into_request() else { panic!("asks") };
/// assert_eq!(request.method(), "sampling/createMessage");
///
/// let reply = json!({"role": "assistant", "content": {"type": "text", "text": "teal"}, "model": "m1"});
/// assert_eq!(Sample::decode(&request, &reply).map(|r| r.text()), Some("teal".to_owned()));
/// assert!(Sample::decode(&request, &json!({"text": "teal"})).is_none(), "not a sampling result");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a question",
    label = "a resolver returns a plain value or one of `Elicit<T>`, `Sample`, `ListRoots`"
)]
pub trait Question: Send + 'static {
    /// The answer's value.
    type Value: Send + Sync + 'static;
    /// The kind of question.
    const KIND: QuestionKind;
    /// The value when the resolver answered without asking, else the request to send.
    fn into_request(self) -> Rendered<Self::Value>;
    /// An accepted answer's payload (elicitation content, sampling or roots result) as the
    /// value, checked against the request it answers; `None` if it does not fit.
    fn decode(request: &InputRequest, payload: &Value) -> Option<Self::Value>;

    /// The [digest](super::question_digest) of the request this question renders, when it
    /// can tell it without the request being rendered and hashed. For this crate's own
    /// questions only: the `Internal` argument cannot be named outside it, so the method
    /// can be neither called nor overridden there (a digest told wrongly would let an
    /// answer count for another question).
    #[doc(hidden)]
    fn known_digest(&self, _: Internal) -> Option<String> {
        None
    }

    /// Note `digest`, the digest of `request` just rendered by a question of this type
    /// and hashed, for [`known_digest`](Self::known_digest). Crate-only, as it is.
    #[doc(hidden)]
    fn note_digest(request: &InputRequest, digest: &str, _: Internal) {
        let _ = (request, digest);
    }

    /// Whether [`decode_unrendered`](Self::decode_unrendered) reads the answers to this
    /// question. Crate-only, as [`known_digest`](Self::known_digest).
    #[doc(hidden)]
    fn decodes_unrendered(&self, _: Internal) -> bool {
        false
    }

    /// [`decode`](Self::decode) against the request this question renders, without
    /// rendering it: a round that takes the answer to a question asked before renders
    /// nothing. Crate-only, as [`known_digest`](Self::known_digest).
    #[doc(hidden)]
    fn decode_unrendered(&self, payload: &Value, _: Internal) -> Option<Self::Value> {
        let _ = payload;
        None
    }
}

/// The argument only this crate can pass to [`Question`]'s crate-only methods.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Internal(());

impl Internal {
    pub(super) const TOKEN: Internal = Internal(());
}

thread_local! {
    /// The digests of form questions this thread asked lately (the last eight, whatever
    /// their form), by message, each with the address of the schema it was asked with (a
    /// form type's schema is built once, in a `static`, so its address tells the types
    /// apart).
    static FORM_DIGESTS: RefCell<Recent<(usize, String), 8>> = const { RefCell::new(Recent::new()) };
}

/// A question rendered for the wire, or the value a resolver already knew.
///
/// # Examples
///
/// ```
/// use mcp::protocol::ListRootsResult;
/// use mcp::resolve::{ListRoots, Question, Rendered};
///
/// match ListRoots::new().into_request() {
///     Rendered::Ask(request) => assert_eq!(request.method(), "roots/list"),
///     Rendered::Answered(_) => panic!("ListRoots::new asks"),
/// }
/// let known = ListRootsResult { roots: Vec::new(), meta: None };
/// assert!(matches!(ListRoots::answered(known).into_request(), Rendered::Answered(r) if r.roots.is_empty()));
/// ```
#[derive(Debug)]
pub enum Rendered<V> {
    /// No question: this is the value.
    Answered(V),
    /// Send this request.
    Ask(Box<InputRequest>),
}

/// Ask the user to fill in the form `T` (form-mode elicitation).
///
/// `T` derives [`ElicitForm`](macro@crate::ElicitForm) (and `Deserialize`), which checks at
/// compile time that it is a flat form of strings, numbers, integers, booleans and
/// string enums.
///
/// # Examples
///
/// A resolver that asks for a form; the client's elicitation callback fills it in:
///
/// ```
/// use mcp::client::Client;
/// use mcp::protocol::{ElicitResult, JsonObject};
/// use mcp::resolve::Elicit;
/// use mcp::{Resolve, Server};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Region {
///     /// Cloud region, e.g. eu-west-1.
///     region: String,
/// }
///
/// #[mcp::resolver]
/// fn ask_region(name: &str) -> Elicit<Region> {
///     Elicit::new(format!("Which region should {name} live in?"))
/// }
///
/// /// Provision a database.
/// #[mcp::tool]
/// fn provision(name: String, region: Resolve<ask_region>) -> String {
///     format!("Provisioned {name} in {}.", region.region)
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("db", "1.0.0").tool::<provision>().build();
///     let client = Client::builder()
///         .elicitation(|_asker, _params| async {
///             let mut form = JsonObject::new();
///             form.insert("region".into(), "eu-west-1".into());
///             Ok(ElicitResult::accept(form))
///         })
///         .connect_in_process(&server)
///         .await?;
///     let result = client.call_tool("provision", serde_json::json!({"name": "orders"})).await?;
///     assert_eq!(result.content[0].as_text(), Some("Provisioned orders in eu-west-1."));
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct Elicit<T> {
    inner: Result<T, String>,
}

impl<T: ElicitForm> Elicit<T> {
    /// Ask `message`, with the schema of `T`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::{ElicitRequestParams, InputRequest};
    /// use mcp::resolve::{Elicit, ElicitForm, Question, Rendered};
    ///
    /// #[derive(serde::Deserialize, mcp::ElicitForm)]
    /// struct Confirm {
    ///     ok: bool,
    /// }
    ///
    /// let Rendered::Ask(request) = Elicit::<Confirm>::new("Go ahead?").into_request() else { panic!("asks") };
    /// let InputRequest::Elicit(ElicitRequestParams::Form(form)) = *request else { panic!("a form") };
    /// assert_eq!(form.message, "Go ahead?");
    /// assert_eq!(&form.requested_schema, Confirm::schema());
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        Elicit { inner: Err(message.into()) }
    }

    /// Do not ask: the value is already known (the consumer gets it as accepted).
    ///
    /// # Examples
    ///
    /// Only big volumes need a confirmation:
    ///
    /// ```
    /// use mcp::resolve::{Elicit, Question, Rendered};
    ///
    /// #[derive(serde::Deserialize, mcp::ElicitForm)]
    /// struct Confirm {
    ///     ok: bool,
    /// }
    ///
    /// #[mcp::resolver]
    /// fn confirm(size_gb: u32) -> Elicit<Confirm> {
    ///     if size_gb < 100 {
    ///         return Elicit::answered(Confirm { ok: true });
    ///     }
    ///     Elicit::new(format!("Provision {size_gb} GB: sure?"))
    /// }
    ///
    /// let Rendered::Answered(confirm) = Elicit::answered(Confirm { ok: true }).into_request() else { panic!() };
    /// assert!(confirm.ok);
    /// ```
    pub fn answered(value: T) -> Self {
        Elicit { inner: Ok(value) }
    }
}

impl<T: ElicitForm> Question for Elicit<T> {
    type Value = T;
    const KIND: QuestionKind = QuestionKind::Elicit;

    fn into_request(self) -> Rendered<T> {
        match self.inner {
            Ok(value) => Rendered::Answered(value),
            Err(message) => {
                Rendered::Ask(Box::new(InputRequest::Elicit(ElicitRequestParams::form(message, T::schema().clone()))))
            }
        }
    }

    fn decode(request: &InputRequest, payload: &Value) -> Option<T> {
        let InputRequest::Elicit(ElicitRequestParams::Form(form)) = request else {
            return None;
        };
        decode_form(&form.requested_schema, payload)
    }

    /// An ask renders a form request with the schema of `T`, and nothing else `decode`
    /// reads.
    fn decodes_unrendered(&self, _: Internal) -> bool {
        self.inner.is_err()
    }

    fn decode_unrendered(&self, payload: &Value, _: Internal) -> Option<T> {
        decode_form(T::schema(), payload)
    }

    /// Known when a question of this type was asked with the same message on this thread
    /// lately: the message and the form's schema are all the request holds.
    fn known_digest(&self, _: Internal) -> Option<String> {
        let Err(message) = &self.inner else { return None };
        let schema = std::ptr::from_ref(T::schema()) as usize;
        let known = FORM_DIGESTS
            .try_with(|kept| {
                kept.borrow().find(message.as_bytes(), |(at, _)| *at == schema).map(|(_, digest)| digest.clone())
            })
            .ok()
            .flatten();
        // The round that takes an answer trusts this digest without rendering the question:
        // debug builds (every test) render it here and check.
        #[cfg(debug_assertions)]
        if let Some(known) = &known {
            let rendered = InputRequest::Elicit(ElicitRequestParams::form(message.clone(), T::schema().clone()));
            debug_assert_eq!(*known, super::question_digest(&rendered), "a form question knew a digest not its own");
        }
        known
    }

    fn note_digest(request: &InputRequest, digest: &str, _: Internal) {
        let InputRequest::Elicit(ElicitRequestParams::Form(form)) = request else { return };
        // The round notes the request `into_request` just rendered (this type's schema, no
        // `_meta`) and its digest; anything else is not noted. (Equal schemas are not
        // always the same text, so the check is a guard, not the proof: the caller is.)
        if form.mode.is_none() || form.meta.is_some() || form.requested_schema != *T::schema() {
            return;
        }
        let schema = std::ptr::from_ref(T::schema()) as usize;
        // `try_with`: a thread whose locals are being torn down keeps nothing.
        let _ =
            FORM_DIGESTS.try_with(|kept| kept.borrow_mut().keep(form.message.as_bytes(), (schema, digest.to_owned())));
    }
}

/// A form answer's content as `T`, if it fits `schema`.
fn decode_form<T: ElicitForm>(schema: &crate::protocol::ElicitationSchema, payload: &Value) -> Option<T> {
    if !content_matches(schema, payload) {
        return None;
    }
    T::deserialize(payload).ok()
}

/// Ask the client's model for a completion (`sampling/createMessage`).
///
/// # Examples
///
/// A resolver that asks the client's model; the client's sampling callback runs it:
///
/// ```
/// use mcp::client::Client;
/// use mcp::protocol::{CreateMessageResult, OneOrMany, Role, SamplingContent, TextContent};
/// use mcp::resolve::Sample;
/// use mcp::{Resolve, Server};
///
/// #[mcp::resolver]
/// fn blurb(name: &str) -> Sample {
///     Sample::user(format!("Describe a database called {name}."), 50)
/// }
///
/// /// Describe a database.
/// #[mcp::tool]
/// fn describe(name: String, blurb: Resolve<blurb>) -> String {
///     format!("{name}: {} (by {})", blurb.text(), blurb.model)
/// }
///
/// fn completion(text: &str) -> CreateMessageResult {
///     CreateMessageResult {
///         role: Role::Assistant,
///         content: OneOrMany::One(SamplingContent::Text(TextContent { text: text.to_owned(), ..Default::default() })),
///         model: "tiny-1".to_owned(),
///         stop_reason: Some("endTurn".to_owned()),
///         meta: None,
///     }
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("db", "1.0.0").tool::<describe>().build();
///     let client = Client::builder()
///         .sampling(|_asker, _params| async { Ok(completion("Holds the orders.")) })
///         .connect_in_process(&server)
///         .await?;
///     let result = client.call_tool("describe", serde_json::json!({"name": "orders"})).await?;
///     assert_eq!(result.content[0].as_text(), Some("orders: Holds the orders. (by tiny-1)"));
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct Sample {
    inner: Result<CreateMessageResult, Box<CreateMessageParams>>,
}

impl Sample {
    /// Ask with these parameters. Tools and tool choice need the client's `sampling.tools`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::{CreateMessageParams, InputRequest};
    /// use mcp::resolve::{Question, Rendered, Sample};
    ///
    /// let mut params = CreateMessageParams::user_text("Name a colour.", 10);
    /// params.system_prompt = Some("Answer in one word.".to_owned());
    /// let Rendered::Ask(request) = Sample::new(params).into_request() else { panic!("asks") };
    /// let InputRequest::Sample(sent) = *request else { panic!("a sampling request") };
    /// assert_eq!(sent.system_prompt.as_deref(), Some("Answer in one word."));
    /// ```
    pub fn new(params: CreateMessageParams) -> Self {
        Sample { inner: Err(Box::new(params)) }
    }

    /// Ask with these messages and token budget, leaving the other parameters unset.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::{InputRequest, OneOrMany, Role, SamplingContent, SamplingMessage, TextContent};
    /// use mcp::resolve::{Question, Rendered, Sample};
    ///
    /// let say = |role, text: &str| SamplingMessage {
    ///     role,
    ///     content: OneOrMany::One(SamplingContent::Text(TextContent { text: text.to_owned(), ..Default::default() })),
    ///     meta: None,
    /// };
    /// let history = vec![say(Role::User, "Hi"), say(Role::Assistant, "Hello!"), say(Role::User, "Name a colour.")];
    /// let Rendered::Ask(request) = Sample::messages(history, 20).into_request() else { panic!("asks") };
    /// let InputRequest::Sample(sent) = *request else { panic!("a sampling request") };
    /// assert_eq!((sent.messages.len(), sent.max_tokens, sent.system_prompt), (3, 20, None));
    /// ```
    pub fn messages(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        let mut params = CreateMessageParams::user_text("", max_tokens);
        params.messages = messages;
        Sample::new(params)
    }

    /// Ask with one user text message.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::{CreateMessageParams, InputRequest};
    /// use mcp::resolve::{Question, Rendered, Sample};
    ///
    /// let Rendered::Ask(request) = Sample::user("Name a colour.", 10).into_request() else { panic!("asks") };
    /// let InputRequest::Sample(sent) = *request else { panic!("a sampling request") };
    /// assert_eq!(sent, CreateMessageParams::user_text("Name a colour.", 10));
    /// ```
    pub fn user(text: impl Into<String>, max_tokens: u64) -> Self {
        Sample::new(CreateMessageParams::user_text(text, max_tokens))
    }

    /// Do not ask: the result is already known.
    ///
    /// # Examples
    ///
    /// A resolver that asks the model only when the tool was not given a summary:
    ///
    /// ```
    /// use mcp::protocol::CreateMessageResult;
    /// use mcp::resolve::{Question, Rendered, Sample};
    ///
    /// fn given(summary: &str) -> CreateMessageResult {
    ///     let result = serde_json::json!({"role": "assistant", "content": {"type": "text", "text": summary}, "model": "given"});
    ///     serde_json::from_value(result).expect("a sampling result")
    /// }
    ///
    /// #[mcp::resolver]
    /// fn summary(summary: Option<String>, text: &str) -> Sample {
    ///     match summary {
    ///         Some(summary) => Sample::answered(given(&summary)),
    ///         None => Sample::user(format!("Summarise: {text}"), 100),
    ///     }
    /// }
    ///
    /// let Rendered::Answered(result) = Sample::answered(given("Short.")).into_request() else { panic!("no question") };
    /// assert_eq!((result.text().as_str(), result.model.as_str()), ("Short.", "given"));
    /// ```
    pub fn answered(result: CreateMessageResult) -> Self {
        Sample { inner: Ok(result) }
    }
}

impl Question for Sample {
    type Value = CreateMessageResult;
    const KIND: QuestionKind = QuestionKind::Sample;

    fn into_request(self) -> Rendered<CreateMessageResult> {
        match self.inner {
            Ok(result) => Rendered::Answered(result),
            Err(params) => Rendered::Ask(Box::new(InputRequest::Sample(*params))),
        }
    }

    fn decode(_request: &InputRequest, payload: &Value) -> Option<CreateMessageResult> {
        CreateMessageResult::deserialize(payload).ok()
    }
}

/// Ask for the client's roots (`roots/list`).
///
/// # Examples
///
/// A resolver that lists the client's roots, here in a 2025-11-25 session (a `roots/list`
/// request to the client):
///
/// ```
/// use mcp::client::{Client, Mode};
/// use mcp::protocol::{ListRootsResult, Root};
/// use mcp::resolve::ListRoots;
/// use mcp::{Resolve, Server};
///
/// #[mcp::resolver]
/// fn roots() -> ListRoots {
///     ListRoots::new()
/// }
///
/// /// Where would a search look?
/// #[mcp::tool]
/// fn search_scope(roots: Resolve<roots>) -> String {
///     roots.roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(" ")
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("search", "1.0.0").tool::<search_scope>().build();
///     let client = Client::builder()
///         .mode(Mode::Legacy)
///         .roots(|_asker| async {
///             let root = Root { uri: "file:///work/app".to_owned(), name: Some("app".to_owned()), meta: None };
///             Ok(ListRootsResult { roots: vec![root], meta: None })
///         })
///         .connect_in_process(&server)
///         .await?;
///     let result = client.call_tool("search_scope", serde_json::json!({})).await?;
///     assert_eq!(result.content[0].as_text(), Some("file:///work/app"));
///     Ok(())
/// }
/// ```
#[derive(Debug, Default)]
pub struct ListRoots {
    answered: Option<ListRootsResult>,
}

impl ListRoots {
    /// Ask.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::InputRequest;
    /// use mcp::resolve::{ListRoots, Question, Rendered};
    ///
    /// let Rendered::Ask(request) = ListRoots::new().into_request() else { panic!("asks") };
    /// assert!(matches!(*request, InputRequest::ListRoots(None)), "a bare roots/list");
    /// ```
    pub fn new() -> Self {
        ListRoots { answered: None }
    }

    /// Do not ask: the roots are already known.
    ///
    /// # Examples
    ///
    /// A resolver that uses a root the tool was given, and asks only without one:
    ///
    /// ```
    /// use mcp::protocol::{ListRootsResult, Root};
    /// use mcp::resolve::{ListRoots, Question, Rendered};
    ///
    /// #[mcp::resolver]
    /// fn roots(root: Option<String>) -> ListRoots {
    ///     let Some(uri) = root else { return ListRoots::new() };
    ///     ListRoots::answered(ListRootsResult { roots: vec![Root { uri, ..Default::default() }], meta: None })
    /// }
    ///
    /// let known = ListRootsResult { roots: vec![Root { uri: "file:///a".to_owned(), ..Default::default() }], meta: None };
    /// let Rendered::Answered(result) = ListRoots::answered(known).into_request() else { panic!("no question") };
    /// assert_eq!(result.roots[0].uri, "file:///a");
    /// ```
    pub fn answered(result: ListRootsResult) -> Self {
        ListRoots { answered: Some(result) }
    }
}

impl Question for ListRoots {
    type Value = ListRootsResult;
    const KIND: QuestionKind = QuestionKind::ListRoots;

    fn into_request(self) -> Rendered<ListRootsResult> {
        match self.answered {
            Some(result) => Rendered::Answered(result),
            None => Rendered::Ask(Box::new(InputRequest::ListRoots(None))),
        }
    }

    fn decode(_request: &InputRequest, payload: &Value) -> Option<ListRootsResult> {
        ListRootsResult::deserialize(payload).ok()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::protocol::{ElicitationSchema, PrimitiveSchema, StringSchema};
    use crate::resolve::form::form_schema;
    use crate::resolve::question_digest;

    /// A form of one string field named `field`, its schema in `cell` (as the derive
    /// builds it: once, in a static).
    fn one_field(cell: &'static OnceLock<ElicitationSchema>, field: &str) -> &'static ElicitationSchema {
        cell.get_or_init(|| form_schema(vec![(field, true, PrimitiveSchema::String(StringSchema::default()))]))
    }

    macro_rules! form {
        ($name:ident, $field:literal) => {
            #[derive(serde::Deserialize)]
            struct $name {}
            impl ElicitForm for $name {
                fn schema() -> &'static ElicitationSchema {
                    static SCHEMA: OnceLock<ElicitationSchema> = OnceLock::new();
                    one_field(&SCHEMA, $field)
                }
            }
        };
    }
    form!(Region, "region");
    form!(Size, "size");
    // The same schema as `Region`'s, so the same question on the wire.
    form!(SameAsRegion, "region");

    /// The digest of the question, as a round works it out: told, or rendered, hashed and
    /// noted.
    fn digest_of<Q: Question>(question: Q) -> String {
        let known = question.known_digest(Internal::TOKEN);
        let Rendered::Ask(request) = question.into_request() else { panic!("asks") };
        let digest = question_digest(&request);
        if let Some(known) = known {
            assert_eq!(known, digest, "told a digest that is not its own");
        }
        Q::note_digest(&request, &digest, Internal::TOKEN);
        digest
    }

    #[test]
    fn a_form_question_knows_its_digest_only_for_its_own_form_and_message() {
        let messages = ["Which one?", "Which one? "];
        for message in messages {
            assert_eq!(Elicit::<Region>::new(message).known_digest(Internal::TOKEN), None, "not asked yet");
        }
        let region: Vec<String> = messages.iter().map(|m| digest_of(Elicit::<Region>::new(*m))).collect();
        let size: Vec<String> = messages.iter().map(|m| digest_of(Elicit::<Size>::new(*m))).collect();
        for (i, message) in messages.iter().enumerate() {
            let told = |known: Option<String>| known.unwrap_or_else(|| panic!("{message}: not known"));
            assert_eq!(told(Elicit::<Region>::new(*message).known_digest(Internal::TOKEN)), region[i]);
            assert_eq!(told(Elicit::<Size>::new(*message).known_digest(Internal::TOKEN)), size[i]);
            assert_ne!(region[i], size[i], "another form, another question");
            // An equal schema is the same question: the same digest, but not known before
            // a question of that form asks.
            assert_eq!(Elicit::<SameAsRegion>::new(*message).known_digest(Internal::TOKEN), None);
            assert_eq!(digest_of(Elicit::<SameAsRegion>::new(*message)), region[i]);
        }
        assert_ne!(region[0], region[1], "another message, another question");
        // Six asked in all: fewer than a thread keeps, so each is still known.
        for (i, message) in messages.iter().enumerate() {
            assert_eq!(Elicit::<Region>::new(*message).known_digest(Internal::TOKEN).as_ref(), Some(&region[i]));
        }
    }

    #[test]
    fn an_answered_question_tells_no_digest() {
        assert_eq!(Elicit::answered(Region {}).known_digest(Internal::TOKEN), None);
    }
}
