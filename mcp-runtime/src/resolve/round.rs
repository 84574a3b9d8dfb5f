//! One round of a tool's resolvers: visit every dependency, reuse recorded answers, take
//! fresh answers that match the question asked, and collect the questions still open.
//!
//! The generated code drives it: the tool builds its [`Plan`] once, then per call creates
//! a [`Round`], asks it for each `Resolve` parameter through [`FromRound`], and either runs
//! the body or returns [`Round::finish`]'s `InputRequiredResult`.

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tracing::Instrument;

use super::answer::Answer;
use super::question::{Internal, Question, QuestionKind, Rendered};
use super::state::{Progress, Recorded, question_digest};
use super::{Resolve, Resolver, Want};
use crate::Error;
use crate::handler::Context;
use crate::protocol::{
    CallToolOutcome, CallToolResult, ElicitAction, InputRequest, InputRequiredResult, InputResponse,
};

/// A boxed future borrowing the round.
pub type RoundFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a call returns instead of running the tool: an `isError` result or a JSON-RPC error.
#[derive(Debug)]
pub struct Stop(pub Result<CallToolOutcome, Error>);

impl Stop {
    /// End the call with an `isError` result carrying `text`.
    pub fn tool_error(text: impl Into<String>) -> Self {
        Stop(Ok(CallToolResult::error(text).into()))
    }

    /// End the call with a JSON-RPC error.
    pub fn error(error: Error) -> Self {
        Stop(Err(error))
    }

    /// End the call the way a failing tool would (used for a resolver's `Err`).
    pub fn from_outcome(outcome: Result<CallToolOutcome, Error>) -> Self {
        Stop(outcome)
    }
}

/// A resolver's result this round.
#[derive(Debug)]
pub enum Visit<V> {
    /// Waiting on a question (its own or a dependency's).
    Pending,
    /// Resolved.
    Done(Answer<Arc<V>>),
}

/// Resolvers with everything they need from tool arguments of type `A` (implemented by
/// `#[mcp::resolver]`).
pub trait ResolveWith<A: ?Sized + Sync>: Resolver {
    /// Resolve dependencies, run the body, and fulfil its question.
    fn run<'a>(round: &'a mut Round, args: &'a A) -> RoundFuture<'a, Result<Visit<Self::Value>, Stop>>;
}

/// A parameter filled during a round (`Resolve<R>` and `Resolve<R, Refusable>`).
pub trait FromRound<A: ?Sized + Sync>: Sized {
    /// `Ok(None)` while the resolver waits for an answer.
    fn from_round<'a>(
        round: &'a mut Round,
        args: &'a A,
        param: &'static str,
    ) -> RoundFuture<'a, Result<Option<Self>, Stop>>;
}

impl<A, R, W> FromRound<A> for Resolve<R, W>
where
    A: ?Sized + Sync,
    R: ResolveWith<A>,
    W: Want,
{
    fn from_round<'a>(
        round: &'a mut Round,
        args: &'a A,
        param: &'static str,
    ) -> RoundFuture<'a, Result<Option<Self>, Stop>> {
        Box::pin(async move {
            let Some(answer) = round.resolve::<R, A>(args).await? else {
                return Ok(None);
            };
            let action = answer.action();
            match W::take(answer) {
                Some(held) => Ok(Some(Resolve::new(held))),
                None => {
                    let refused = if action == "cancel" { "cancelled" } else { "declined" };
                    Err(Stop::tool_error(format!(
                        "Resolver for parameter '{param}' could not resolve: the elicitation was {refused}"
                    )))
                }
            }
        })
    }
}

/// Collects a tool's resolvers in discovery order (for their wire keys), and the
/// application-state types they take.
#[derive(Debug, Default)]
pub struct Graph {
    order: Vec<(TypeId, &'static str)>,
    states: crate::handler::StateNeeds,
}

impl Graph {
    /// Add to `needs` the state types of the resolvers `collect` enters (a tool's
    /// `state_needs`), and record that the tool takes resolvers.
    pub fn state_needs_of(needs: &mut crate::handler::StateNeeds, collect: impl FnOnce(&mut Graph)) {
        let mut graph = Graph::default();
        collect(&mut graph);
        needs.extend(&graph.states);
        if !graph.order.is_empty() {
            needs.mark_resolvers();
        }
    }

    /// Where an entered resolver records the state types it takes.
    pub fn states(&mut self) -> &mut crate::handler::StateNeeds {
        &mut self.states
    }

    /// Record `R`; false if it was already recorded (its dependencies too, then).
    pub fn enter<R: Resolver>(&mut self) -> bool {
        let id = TypeId::of::<R>();
        if self.order.iter().any(|(seen, _)| *seen == id) {
            return false;
        }
        self.order.push((id, R::KEY));
        true
    }
}

/// A tool's resolvers and their wire keys: the base key, or `base#1`, `base#2`, ... for
/// later resolvers sharing a base, in discovery order, so keys are the same in every process.
/// A key already taken (an explicit key such as `"pick#1"` next to two `"pick"`s) moves on
/// to its base's next free suffix, so no two resolvers of a tool share a key.
#[derive(Debug)]
pub struct Plan {
    /// In discovery order. A tool has a few resolvers: a scan of their type ids costs less
    /// than hashing one with SipHash.
    keys: Vec<(TypeId, Arc<str>)>,
}

impl Plan {
    /// Build the plan from the tool's `Resolve` parameters, in declaration order.
    pub fn build(collect: impl FnOnce(&mut Graph)) -> Plan {
        let mut graph = Graph::default();
        collect(&mut graph);
        let mut taken: HashMap<&str, usize> = HashMap::new();
        let mut used: HashSet<String> = HashSet::new();
        let keys = graph
            .order
            .iter()
            .map(|(id, base)| {
                let n = taken.entry(base).or_default();
                let mut key = if *n == 0 { (*base).to_owned() } else { format!("{base}#{n}") };
                while used.contains(&key) {
                    *n += 1;
                    key = format!("{base}#{n}");
                }
                *n += 1;
                used.insert(key.clone());
                (*id, Arc::from(key))
            })
            .collect();
        Plan { keys }
    }

    /// The wire key of `R` in this tool.
    pub fn key<R: Resolver>(&self) -> Arc<str> {
        let id = TypeId::of::<R>();
        let found = self.keys.iter().find(|(key_of, _)| *key_of == id);
        found.map(|(_, key)| Arc::clone(key)).unwrap_or_else(|| Arc::from(R::KEY))
    }
}

enum Memo {
    Running,
    Pending,
    Done(Box<dyn Any + Send + Sync>),
}

/// One round of one call.
pub struct Round {
    ctx: Context,
    plan: &'static Plan,
    tool: &'static str,
    legacy: bool,
    recorded: Progress,
    next: Progress,
    pending: BTreeMap<String, InputRequest>,
    /// Each resolver visited this round (a few per tool: scanned, as `Plan::keys`).
    memo: Vec<(TypeId, Memo)>,
}

impl std::fmt::Debug for Round {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Round").field("tool", &self.tool).field("pending", &self.pending.keys()).finish_non_exhaustive()
    }
}

impl Round {
    /// Start the round for a call of `tool`: decode the progress from the request state
    /// (modern requests only; legacy sessions ask over the back-channel).
    pub fn new(ctx: &Context, plan: &'static Plan, tool: &'static str) -> Self {
        let legacy = ctx.is_legacy();
        let recorded = if legacy { Progress::new() } else { Progress::decode(ctx.request_state()) };
        let mut next = Progress::new();
        if !legacy {
            // Which round of the call this is, on the request's span.
            next.r = recorded.r.saturating_add(1);
            ctx.request().span().record("mcp.round", i64::from(next.r));
        }
        Round { ctx: ctx.clone(), plan, tool, legacy, recorded, next, pending: BTreeMap::new(), memo: Vec::new() }
    }

    /// The request's context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Resolve `R` (at most once per round), or `None` while it waits.
    pub async fn resolve<R, A>(&mut self, args: &A) -> Result<Option<Answer<Arc<R::Value>>>, Stop>
    where
        R: ResolveWith<A>,
        A: ?Sized + Sync,
    {
        let id = TypeId::of::<R>();
        let at = self.memo.iter().position(|(seen, _)| *seen == id);
        match at.map(|at| &self.memo[at].1) {
            Some(Memo::Done(value)) => return Ok(value.downcast_ref::<Answer<Arc<R::Value>>>().cloned()),
            Some(Memo::Pending) => return Ok(None),
            Some(Memo::Running) => {
                tracing::error!(tool = self.tool, resolver = R::KEY, "resolver depends on itself");
                return Err(Stop::tool_error(format!("Error executing tool {}", self.tool)));
            }
            None => {}
        }
        self.memo.push((id, Memo::Running));
        let at = self.memo.len() - 1;
        let span = tracing::info_span!(
            target: crate::telemetry::TARGET,
            "mcp.resolve",
            otel.name = tracing::field::Empty,
            otel.kind = "internal",
            mcp.resolver.name = R::KEY,
            mcp.resolver.outcome = tracing::field::Empty,
        );
        if !span.is_disabled() {
            span.record("otel.name", format!("resolve {}", R::KEY).as_str());
        }
        let visit = R::run(self, args).instrument(span.clone()).await;
        let (memo, result, outcome) = match visit {
            Ok(Visit::Pending) => (Memo::Pending, Ok(None), "pending"),
            Ok(Visit::Done(answer)) => (Memo::Done(Box::new(answer.clone())), Ok(Some(answer)), "answered"),
            Err(stop) => (Memo::Pending, Err(stop), "stopped"),
        };
        span.record("mcp.resolver.outcome", outcome);
        // A resolver's run visits its dependencies, which push their own entries after
        // `at`: entries are never removed, so `at` is still this resolver's.
        self.memo[at].1 = memo;
        result
    }

    /// A resolver body's plain value (no question).
    pub fn value<V: Send + Sync + 'static>(value: V) -> Result<Visit<V>, Stop> {
        Ok(Visit::Done(Answer::Accept(Arc::new(value))))
    }

    /// Fulfil the question a resolver body returned: reuse the answer recorded for this
    /// exact question, take a fresh answer to it, or ask it.
    pub async fn fulfil<R, Q>(&mut self, question: Q) -> Result<Visit<R::Value>, Stop>
    where
        R: Resolver,
        Q: Question<Value = R::Value>,
    {
        // Told by the question when it can (before it is consumed), else hashed below.
        let known = if self.legacy { None } else { question.known_digest(Internal::TOKEN) };
        let key = self.plan.key::<R>();
        // A question that tells its digest and reads its answers itself is rendered only
        // if it is asked: the round that takes its answer renders nothing.
        let unrendered = known.is_some() && question.decodes_unrendered(Internal::TOKEN);
        if let Some(q) = known.as_deref().filter(|_| unrendered) {
            let decode = |payload: &serde_json::Value| question.decode_unrendered(payload, Internal::TOKEN);
            if let Some(visit) = self.take_answer::<Q>(&key, q, decode)? {
                return Ok(visit);
            }
        }
        let request = match question.into_request() {
            Rendered::Answered(value) => return Round::value(value),
            Rendered::Ask(request) => *request,
        };
        if self.legacy {
            // Boxed: its future (the request to the client, and the answer awaited) would
            // otherwise make every resolver's future that much larger, in either era.
            return Box::pin(self.ask_back_channel::<Q>(&key, request)).await;
        }
        let q = known.unwrap_or_else(|| {
            let q = question_digest(&request);
            Q::note_digest(&request, &q, Internal::TOKEN);
            q
        });
        debug_assert_eq!(q, question_digest(&request), "a question told a digest that is not its own");
        if !unrendered && let Some(visit) = self.take_answer::<Q>(&key, &q, |payload| Q::decode(&request, payload))? {
            return Ok(visit);
        }
        self.gate(&key, &request)?;
        self.next.asked.insert(key.to_string(), q);
        self.pending.insert(key.to_string(), request);
        Ok(Visit::Pending)
    }

    /// The answer to question `q` under `key`, read with `decode`: the one recorded for
    /// it, else a fresh one to it (that came with the state that asked it); `None` when
    /// there is neither, and the question is to be asked.
    fn take_answer<Q: Question>(
        &mut self,
        key: &str,
        q: &str,
        decode: impl Fn(&serde_json::Value) -> Option<Q::Value>,
    ) -> Result<Option<Visit<Q::Value>>, Stop> {
        if let Some(recorded) = self.recorded.outcomes.get(key).filter(|r| r.q == q) {
            let answer = match recorded.action {
                ElicitAction::Accept => recorded.data.as_ref().and_then(&decode).map(|v| Answer::Accept(Arc::new(v))),
                ElicitAction::Decline => (Q::KIND == QuestionKind::Elicit).then_some(Answer::Decline),
                ElicitAction::Cancel => (Q::KIND == QuestionKind::Elicit).then_some(Answer::Cancel),
            };
            if let Some(answer) = answer {
                self.next.outcomes.insert(key.to_owned(), recorded.clone());
                return Ok(Some(Visit::Done(answer)));
            }
            tracing::debug!(resolver = %key, "a recorded answer no longer fits its question; asking again");
        }
        if let Some(response) = self.ctx.input_response(key) {
            if self.recorded.asked.get(key).is_some_and(|asked| asked == q) {
                let fresh = interpret::<Q>(key, response, decode).map_err(Stop::tool_error)?;
                let recorded = Recorded { action: fresh.action, data: fresh.data, q: q.to_owned() };
                self.next.outcomes.insert(key.to_owned(), recorded);
                return Ok(Some(Visit::Done(fresh.answer.map(Arc::new))));
            }
            tracing::info!(
                resolver = %key,
                "discarding an answer: the question changed since it was asked, or it came without the state that asked it"
            );
        }
        Ok(None)
    }

    async fn ask_back_channel<Q: Question>(
        &mut self,
        key: &str,
        request: InputRequest,
    ) -> Result<Visit<Q::Value>, Stop> {
        self.gate(key, &request)?;
        let response = self.ctx.request_input(request.clone()).await.map_err(Stop::error)?;
        let fresh = interpret::<Q>(key, &response, |payload| Q::decode(&request, payload)).map_err(Stop::tool_error)?;
        Ok(Visit::Done(fresh.answer.map(Arc::new)))
    }

    /// Refuse a question the client did not declare the capability for (-32021).
    fn gate(&self, key: &str, request: &InputRequest) -> Result<(), Stop> {
        match crate::protocol::missing_capability(request, self.ctx.client_capabilities()) {
            None => Ok(()),
            Some((what, required)) => Err(Stop::error(Error::missing_client_capability(
                format!("Client did not declare the {what} capability required by resolver '{key}'"),
                &required,
            ))),
        }
    }

    /// The `InputRequiredResult` to return when questions are open (`None` when every
    /// parameter is resolved).
    pub fn finish(&mut self) -> Option<Result<CallToolOutcome, Error>> {
        if self.pending.is_empty() {
            return None;
        }
        let result = InputRequiredResult {
            input_requests: Some(std::mem::take(&mut self.pending)),
            request_state: Some(self.next.encode()),
            ..Default::default()
        };
        Some(Ok(result.into()))
    }

    /// A parameter that is still unresolved after a round without open questions: only a
    /// broken invariant gets here.
    pub fn unresolved(&self, param: &str) -> Result<CallToolOutcome, Error> {
        tracing::error!(tool = self.tool, param, "a resolved parameter has no value");
        Err(Error::internal(format!("Error executing tool {}", self.tool)))
    }

    /// The body of a tool with resolvers must not answer `input_required` itself: its
    /// resolvers own the call's `requestState`.
    pub fn check_final(&self, outcome: Result<CallToolOutcome, Error>) -> Result<CallToolOutcome, Error> {
        if let Ok(CallToolOutcome::InputRequired(_)) = &outcome {
            tracing::error!(
                tool = self.tool,
                "the tool returned an InputRequiredResult but its parameters use Resolve<...>; \
                 ask through a resolver instead"
            );
            return Ok(CallToolResult::error(format!("Error executing tool {}", self.tool)).into());
        }
        outcome
    }
}

/// A fresh answer: the value, and what to record.
pub(super) struct Fresh<V> {
    pub(super) answer: Answer<V>,
    action: ElicitAction,
    data: Option<serde_json::Value>,
}

/// Read a fresh answer, its payload with `decode` (the question's, against its request);
/// the error says what was wrong with it.
pub(super) fn interpret<Q: Question>(
    key: &str,
    response: &InputResponse,
    decode: impl Fn(&serde_json::Value) -> Option<Q::Value>,
) -> Result<Fresh<Q::Value>, String> {
    let fail = |what: &str| Err(format!("Resolver '{key}' received {what}"));
    let payload = match (Q::KIND, response) {
        (QuestionKind::Elicit, InputResponse::Elicit(result)) => match (result.action, &result.content) {
            (ElicitAction::Accept, Some(content)) => serde_json::Value::Object(content.clone()),
            (ElicitAction::Accept, None) => return fail("an accepted elicitation with no content"),
            (ElicitAction::Decline, _) => {
                return Ok(Fresh { answer: Answer::Decline, action: ElicitAction::Decline, data: None });
            }
            (ElicitAction::Cancel, _) => {
                return Ok(Fresh { answer: Answer::Cancel, action: ElicitAction::Cancel, data: None });
            }
        },
        (QuestionKind::Elicit, _) => return fail("a non-elicitation response"),
        (QuestionKind::Sample, InputResponse::Sample(result)) => serde_json::to_value(result).unwrap_or_default(),
        (QuestionKind::ListRoots, InputResponse::ListRoots(result)) => serde_json::to_value(result).unwrap_or_default(),
        _ => return fail("a response of the wrong kind"),
    };
    match decode(&payload) {
        Some(value) => Ok(Fresh { answer: Answer::Accept(value), action: ElicitAction::Accept, data: Some(payload) }),
        None if Q::KIND == QuestionKind::Elicit => {
            fail("an elicitation whose content does not match the requested schema")
        }
        None => fail("an answer that does not fit its question"),
    }
}
