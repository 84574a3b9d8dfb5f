//! Ticket triage: a ticket store shared by every handler through `State<Tickets>`, a
//! structured tool, a tool whose two questions depend on each other (resolvers), a prompt
//! and a resource template.
//!
//! The store is registered once with `.state(Tickets::default())`; each handler that takes
//! `db: State<Tickets>` gets a clone of it (an `Arc` inside, so every clone sees the same
//! tickets). No statics.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use mcp::resolve::Elicit;
use mcp::{Error, Resolve, Server, State};

/// Who can take a ticket.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema, mcp::ElicitForm,
)]
#[serde(rename_all = "lowercase")]
pub enum Team {
    /// Servers, networks, on-call.
    Infra,
    /// The product's code.
    App,
    /// Customers' questions.
    Support,
}

/// How soon a ticket needs work.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema, mcp::ElicitForm,
)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// When someone has time.
    Low,
    /// This week.
    Normal,
    /// Now.
    Urgent,
}

/// A ticket as the tools return it and the resource serves it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Ticket {
    /// Its number.
    pub id: u32,
    /// What is wrong.
    pub title: String,
    /// The team it went to, once triaged.
    pub team: Option<Team>,
    /// How soon, once triaged.
    pub priority: Option<Priority>,
}

/// The ticket store, shared by every request (cheap to clone: one `Arc`).
#[derive(Debug, Clone, Default)]
pub struct Tickets(Arc<Mutex<BTreeMap<u32, Ticket>>>);

impl Tickets {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<u32, Ticket>> {
        // A handler that panicked mid-update left a whole map behind: keep serving it.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// File a new ticket; returns it.
    pub fn open(&self, title: String) -> Ticket {
        let mut tickets = self.lock();
        let id = tickets.keys().next_back().map_or(1, |last| last + 1);
        let ticket = Ticket { id, title, team: None, priority: None };
        tickets.insert(id, ticket.clone());
        ticket
    }

    /// A copy of ticket `id`.
    pub fn get(&self, id: u32) -> Option<Ticket> {
        self.lock().get(&id).cloned()
    }

    /// Give ticket `id` a team and a priority; returns the updated ticket.
    pub fn triage(&self, id: u32, team: Team, priority: Priority) -> Option<Ticket> {
        let mut tickets = self.lock();
        let ticket = tickets.get_mut(&id)?;
        ticket.team = Some(team);
        ticket.priority = Some(priority);
        Some(ticket.clone())
    }
}

/// Which team takes the ticket.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
pub struct TeamForm {
    /// The team that takes it.
    pub team: Team,
}

/// How urgent it is.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
pub struct PriorityForm {
    /// How soon it needs work.
    pub priority: Priority,
}

/// File a ticket.
#[mcp::tool]
pub fn open_ticket(
    /// What is wrong, in one line.
    title: String,
    db: State<Tickets>,
) -> Ticket {
    db.open(title)
}

/// Asks which team takes the ticket.
#[mcp::resolver]
pub fn ask_team(id: &u32, db: State<Tickets>) -> Result<Elicit<TeamForm>, String> {
    let ticket = db.get(*id).ok_or_else(|| format!("No ticket #{id}."))?;
    Ok(Elicit::new(format!("Which team should take #{id} \"{}\"?", ticket.title)))
}

/// Asks how urgent the ticket is for the team chosen first (infra tickets are always urgent).
#[mcp::resolver]
pub fn ask_priority(id: &u32, team: Resolve<ask_team>) -> Elicit<PriorityForm> {
    if team.team == Team::Infra {
        return Elicit::answered(PriorityForm { priority: Priority::Urgent });
    }
    Elicit::new(format!("How urgent is #{id} for {:?}?", team.team))
}

/// Triage a ticket: asks for its team, then for its priority.
#[mcp::tool]
pub fn triage(
    /// The ticket's number.
    id: u32,
    team: Resolve<ask_team>,
    priority: Resolve<ask_priority>,
    db: State<Tickets>,
) -> Result<Ticket, String> {
    db.triage(id, team.team, priority.priority).ok_or_else(|| format!("No ticket #{id}."))
}

/// Ask the model to draft a first answer to a ticket.
#[mcp::prompt]
pub fn draft_reply(
    /// The ticket's number.
    id: u32,
    db: State<Tickets>,
) -> Result<String, Error> {
    let ticket = db.get(id).ok_or_else(|| Error::invalid_params(format!("No ticket #{id}.")))?;
    Ok(format!("Draft a short, friendly first reply to ticket #{id}: \"{}\".", ticket.title))
}

/// One ticket, as JSON.
#[mcp::resource("tickets://{id}", mime_type = "application/json")]
pub fn ticket(id: u32, db: State<Tickets>) -> Result<String, Error> {
    let ticket = db.get(id).ok_or_else(|| Error::invalid_params(format!("No ticket #{id}.")))?;
    serde_json::to_string(&ticket).map_err(|e| Error::internal(e.to_string()))
}

/// The server over `store`.
pub fn server_with(store: Tickets) -> Server {
    crate::with_env_keys(Server::builder("tickets", env!("CARGO_PKG_VERSION")))
        .state(store)
        .tool::<open_ticket>()
        .tool::<triage>()
        .prompt::<draft_reply>()
        .resource::<ticket>()
        .build()
}

/// The server, with an empty store.
pub fn server() -> Server {
    server_with(Tickets::default())
}
