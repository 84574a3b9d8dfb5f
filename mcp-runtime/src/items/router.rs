//! The registry of macro-defined items and the handlers that serve them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::completion::{Completers, CompletionArguments};
use super::dynamic::{AddToolError, DynamicTool};
use super::problem::{BuildProblem, ItemKind};
use super::scopes::{self, Scopes};
use super::template::{UriTemplate, Variables};
use super::{PromptDef, ResourceDef, ResourceKind, ToolDef};
use crate::Error;
use crate::handler::{AuthInfo, BoxFuture, Context, RequestContext, StateNeeds};
use crate::protocol::{
    CallToolOutcome, CallToolParams, CompleteParams, CompleteResult, CompletionReference, GetPromptOutcome,
    GetPromptParams, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Params,
    Prompt, ReadResourceOutcome, ReadResourceParams, Resource, ResourceTemplate, Tool, declares_tasks, param_str,
    tasks_capability,
};
use crate::tasks::TaskSupport;

type ToolCall = fn(Context, CallToolParams) -> BoxFuture<Result<CallToolOutcome, Error>>;
type PromptGet = fn(Context, GetPromptParams) -> BoxFuture<Result<GetPromptOutcome, Error>>;
type ResourceRead = fn(Context, ReadResourceParams, Variables) -> BoxFuture<Result<ReadResourceOutcome, Error>>;

/// A table of items by name (or URI), looked up on every request of its kind: hashed with
/// foldhash rather than the standard SipHash, which cost about 200 instructions per lookup
/// of a short name (two or three lookups per `tools/call`). The tables are filled by the
/// server's own registrations only, so a client cannot pick keys that collide.
type Names<V> = HashMap<String, V, foldhash::fast::RandomState>;

/// A macro tool's call and what is checked around it.
struct ToolEntry {
    call: ToolCall,
    scopes: Scopes,
    task: TaskSupport,
    /// Its calls can never answer `input_required` (`ToolDef::MAY_REQUIRE_INPUT` false,
    /// and no task).
    never_asks: bool,
}

/// Items registered on a server builder.
#[derive(Default)]
pub(crate) struct Items {
    tools: Vec<Tool>,
    tool_calls: Names<ToolEntry>,
    prompts: Vec<Prompt>,
    prompt_gets: Names<(PromptGet, Scopes)>,
    resources: Vec<Resource>,
    static_reads: Names<(ResourceRead, Scopes)>,
    templates: Vec<(ResourceTemplate, UriTemplate, ResourceRead, Scopes)>,
    /// Tools built at run time, registered at build.
    dynamic_tools: Vec<DynamicTool>,
    /// Serve tools from this registry even with none registered (tools come later).
    allow_dynamic_tools: bool,
    completers: Completers,
    /// Registration problems, reported by `try_build`.
    pub(crate) errors: Vec<BuildProblem>,
    /// The application-state types each item takes, checked by `try_build`.
    pub(crate) state_needs: Vec<(ItemKind, String, StateNeeds)>,
    /// Inline the `$defs` of every tool's schemas (`ServerBuilder::inline_schema_refs`).
    pub(crate) inline_schema_refs: bool,
    /// List each caller only the items its scopes allow (`ServerBuilder::hide_unauthorized_items`).
    pub(crate) hide_unauthorized: bool,
    /// Requests without any `AuthInfo` may use scoped items
    /// (`ServerBuilder::allow_scoped_items_without_auth`).
    pub(crate) scoped_items_without_auth: bool,
}

impl Items {
    pub(crate) fn add_tool<T: ToolDef>(&mut self) {
        // Everything but reading the item is shared, so each tool adds only this call.
        self.add_tool_parts(T::definition(), T::call, T::SCOPES, T::TASK, T::MAY_REQUIRE_INPUT, T::state_needs);
    }

    fn add_tool_parts(
        &mut self,
        tool: Tool,
        call: ToolCall,
        scopes: Scopes,
        task: TaskSupport,
        may_require_input: bool,
        state_needs: fn(&mut StateNeeds),
    ) {
        let taken = self.dynamic_tools.iter().any(|d| d.name() == tool.name);
        let never_asks = !may_require_input && task == TaskSupport::Forbidden;
        let entry = ToolEntry { call, scopes, task, never_asks };
        if taken || self.tool_calls.insert(tool.name.clone(), entry).is_some() {
            self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Tool, name: tool.name.clone() });
            return;
        }
        self.need_state(ItemKind::Tool, &tool.name, state_needs);
        self.tools.push(tool);
    }

    pub(crate) fn add_dynamic_tool(&mut self, tool: DynamicTool) {
        let taken =
            self.tool_calls.contains_key(tool.name()) || self.dynamic_tools.iter().any(|d| d.name() == tool.name());
        if taken {
            self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Tool, name: tool.name().to_owned() });
            return;
        }
        self.dynamic_tools.push(tool);
    }

    pub(crate) fn allow_dynamic_tools(&mut self) {
        self.allow_dynamic_tools = true;
    }

    pub(crate) fn add_prompt<P: PromptDef>(&mut self) {
        let prompt = P::definition();
        if self.prompt_gets.insert(prompt.name.clone(), (P::get, P::SCOPES)).is_some() {
            self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Prompt, name: prompt.name.clone() });
            return;
        }
        let arguments = prompt.arguments.iter().flatten().map(|a| a.name.as_str());
        self.completers.add_prompt(&prompt.name, arguments, P::completer);
        self.need_state(ItemKind::Prompt, &prompt.name, P::state_needs);
        self.prompts.push(prompt);
    }

    pub(crate) fn add_resource<R: ResourceDef>(&mut self) {
        match R::definition() {
            ResourceKind::Static(resource) => {
                if self.static_reads.insert(resource.uri.clone(), (R::read, R::SCOPES)).is_some() {
                    self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Resource, name: resource.uri.clone() });
                    return;
                }
                self.need_state(ItemKind::Resource, &resource.uri, R::state_needs);
                self.resources.push(resource);
            }
            ResourceKind::Template(template) => {
                if self.templates.iter().any(|(t, ..)| t.uri_template == template.uri_template) {
                    self.errors.push(BuildProblem::Duplicate {
                        kind: ItemKind::ResourceTemplate,
                        name: template.uri_template.clone(),
                    });
                    return;
                }
                self.need_state(ItemKind::ResourceTemplate, &template.uri_template, R::state_needs);
                match UriTemplate::parse(&template.uri_template) {
                    Ok(parsed) => {
                        self.completers.add_template(&template.uri_template, parsed.variables(), R::completer);
                        self.templates.push((template, parsed, R::read, R::SCOPES));
                    }
                    Err(e) => self.errors.push(BuildProblem::InvalidTemplate {
                        template: template.uri_template.clone(),
                        reason: e.to_string(),
                    }),
                }
            }
        }
    }

    /// Record the state types an item takes, if any.
    fn need_state(&mut self, kind: ItemKind, name: &str, collect: fn(&mut StateNeeds)) {
        let mut needs = StateNeeds::default();
        collect(&mut needs);
        if needs.type_names().next().is_some() || needs.has_resolvers() {
            self.state_needs.push((kind, name.to_owned(), needs));
        }
    }

    /// The tools that take resolvers (their answers travel in the sealed state).
    pub(crate) fn tools_with_resolvers(&self) -> impl Iterator<Item = &str> {
        let tools = self.state_needs.iter().filter(|(kind, _, needs)| *kind == ItemKind::Tool && needs.has_resolvers());
        tools.map(|(_, name, _)| name.as_str())
    }

    /// A [`BuildProblem::MissingState`] for each state type an item takes that `state` lacks.
    pub(crate) fn missing_state(&self, state: &crate::handler::StateMap) -> Vec<BuildProblem> {
        let mut problems = Vec::new();
        for (kind, name, needs) in &self.state_needs {
            for (_, type_name) in needs.iter().filter(|(id, _)| !state.contains(*id)) {
                problems.push(BuildProblem::MissingState { kind: *kind, name: name.clone(), type_name });
            }
        }
        problems
    }

    /// Every scope the registered items declare, sorted, each once.
    pub(crate) fn declared_scopes(&self) -> Vec<String> {
        let tools = self.tool_calls.values().map(|t| t.scopes);
        let prompts = self.prompt_gets.values().map(|(_, s)| *s);
        let statics = self.static_reads.values().map(|(_, s)| *s);
        let templates = self.templates.iter().map(|(.., s)| *s);
        let fixed = tools.chain(prompts).chain(statics).chain(templates).flatten().copied();
        let dynamic = self.dynamic_tools.iter().flat_map(|d| d.required_scopes().iter().map(String::as_str));
        scopes::collect(fixed.chain(dynamic))
    }

    pub(crate) fn has_tools(&self) -> bool {
        !self.tools.is_empty() || !self.dynamic_tools.is_empty() || self.allow_dynamic_tools
    }

    /// Whether any tool may run as a task.
    pub(crate) fn has_task_tools(&self) -> bool {
        self.tool_calls.values().any(|t| t.task != TaskSupport::Forbidden)
    }

    pub(crate) fn has_prompts(&self) -> bool {
        !self.prompts.is_empty()
    }

    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    /// Whether any prompt argument or template variable has a completer.
    pub(crate) fn has_completers(&self) -> bool {
        self.completers.any()
    }

    /// Split into shared tables the handlers close over.
    pub(crate) fn into_shared(self) -> Arc<SharedItems> {
        let declared_scopes = self.declared_scopes();
        let tool_scopes = self.tool_calls.iter().map(|(name, t)| (name.clone(), t.scopes));
        let tool_scopes = tool_scopes.filter(|(_, s)| !s.is_empty()).collect();
        let prompt_scopes = self.prompt_gets.iter().map(|(name, (_, s))| (name.clone(), *s));
        let prompt_scopes = prompt_scopes.filter(|(_, s)| !s.is_empty()).collect();
        let resource_scopes = self.static_reads.iter().map(|(uri, (_, s))| (uri.clone(), *s));
        let templates = self.templates.iter().map(|(t, .., s)| (t.uri_template.clone(), *s));
        let resource_scopes = resource_scopes.chain(templates).filter(|(_, s)| !s.is_empty()).collect();
        Arc::new(SharedItems {
            // Tools added while serving may bring scopes: a registry that takes them filters too.
            hide_unauthorized: self.hide_unauthorized
                && (!declared_scopes.is_empty() || !self.dynamic_tools.is_empty() || self.allow_dynamic_tools),
            scoped_items_without_auth: self.scoped_items_without_auth,
            declared_scopes,
            tool_scopes,
            prompt_scopes,
            resource_scopes,
            serves_tools: self.has_tools(),
            dynamic_tools: RwLock::new(self.dynamic_tools),
            version: AtomicU64::new(0),
            tools: ListToolsResult::new(if self.inline_schema_refs {
                self.tools.into_iter().map(super::inline_refs::inline_tool_refs).collect()
            } else {
                self.tools
            }),
            tool_calls: self.tool_calls,
            prompts: ListPromptsResult::new(self.prompts),
            prompt_gets: self.prompt_gets,
            resources: ListResourcesResult { resources: self.resources, ..Default::default() },
            templates: ListResourceTemplatesResult {
                resource_templates: self.templates.iter().map(|(t, ..)| t.clone()).collect(),
                ..Default::default()
            },
            static_reads: self.static_reads,
            template_reads: self
                .templates
                .into_iter()
                .map(|(_, parsed, read, scopes)| (parsed, read, scopes))
                .collect(),
            completers: self.completers,
            disabled_tools: RwLock::default(),
            disabled_prompts: RwLock::default(),
            encoded: RwLock::default(),
        })
    }
}

/// The registered items, shared by the handlers. Definitions are computed once.
pub(crate) struct SharedItems {
    /// Every scope the items registered at build declare; with those of the dynamic tools
    /// registered now, `Server::declared_scopes`.
    declared_scopes: Vec<String>,
    /// Whether lists are filtered by the caller's scopes (and so never cached).
    pub(crate) hide_unauthorized: bool,
    /// Whether a request without any `AuthInfo` may use scoped items.
    scoped_items_without_auth: bool,
    /// The scopes of the scoped items, for listing (by tool name, prompt name, resource
    /// URI or template).
    tool_scopes: Names<Scopes>,
    prompt_scopes: Names<Scopes>,
    resource_scopes: Names<Scopes>,
    /// Whether this registry serves `tools/list` and `tools/call`.
    serves_tools: bool,
    /// Tools added at run time (or at build), after the macro tools in `tools/list`.
    dynamic_tools: RwLock<Vec<DynamicTool>>,
    /// Bumped on every change, so a list encoded during a change is not cached.
    version: AtomicU64,
    tools: ListToolsResult,
    tool_calls: Names<ToolEntry>,
    prompts: ListPromptsResult,
    prompt_gets: Names<(PromptGet, Scopes)>,
    resources: ListResourcesResult,
    templates: ListResourceTemplatesResult,
    static_reads: Names<(ResourceRead, Scopes)>,
    template_reads: Vec<(UriTemplate, ResourceRead, Scopes)>,
    completers: Completers,
    /// Tools and prompts taken out of service at run time, by name.
    disabled_tools: RwLock<HashSet<String>>,
    disabled_prompts: RwLock<HashSet<String>>,
    /// Finished list responses, encoded once per list and era (cleared on changes).
    encoded: RwLock<HashMap<(ListKind, bool), Arc<str>>>,
}

/// The lists the items serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl crate::handler::ItemSwitch for SharedItems {
    fn set_tool_enabled(&self, name: &str, enabled: bool) -> bool {
        SharedItems::set_tool_enabled(self, name, enabled)
    }

    fn set_prompt_enabled(&self, name: &str, enabled: bool) -> bool {
        SharedItems::set_prompt_enabled(self, name, enabled)
    }

    fn as_any(&self) -> &(dyn std::any::Any + Send + Sync) {
        self
    }
}

impl SharedItems {
    /// Take a registered tool out of service (or back); false if there is no such tool.
    pub(crate) fn set_tool_enabled(&self, name: &str, enabled: bool) -> bool {
        if !self.has_tool(name) {
            return false;
        }
        let mut disabled = write(&self.disabled_tools);
        self.invalidate();
        if enabled { disabled.remove(name) } else { disabled.insert(name.to_owned()) }
    }

    /// Take a registered prompt out of service (or back); false if there is no such prompt.
    pub(crate) fn set_prompt_enabled(&self, name: &str, enabled: bool) -> bool {
        if !self.prompt_gets.contains_key(name) {
            return false;
        }
        let mut disabled = write(&self.disabled_prompts);
        self.invalidate();
        if enabled { disabled.remove(name) } else { disabled.insert(name.to_owned()) }
    }

    /// Whether a call of the tool `name` may answer `input_required`: false only for a
    /// registered macro tool that says it cannot ask (`ToolDef::MAY_REQUIRE_INPUT`), true
    /// for anything else (dynamic tools, unknown names).
    pub(crate) fn tool_may_require_input(&self, name: &str) -> bool {
        !self.tool_calls.get(name).is_some_and(|t| t.never_asks)
    }

    /// Whether a tool named `name` is registered, from a macro or at run time.
    fn has_tool(&self, name: &str) -> bool {
        self.tool_calls.contains_key(name) || read(&self.dynamic_tools).iter().any(|d| d.name() == name)
    }

    /// Forget the encoded lists (something changed).
    fn invalidate(&self) {
        self.version.fetch_add(1, Ordering::SeqCst);
        write(&self.encoded).clear();
    }

    /// Add a tool while serving; its name must be free.
    pub(crate) fn add_tool(&self, tool: DynamicTool) -> Result<(), AddToolError> {
        if !self.serves_tools {
            return Err(AddToolError::NoRegistry(tool.name().to_owned()));
        }
        let mut dynamic = write(&self.dynamic_tools);
        if self.tool_calls.contains_key(tool.name()) || dynamic.iter().any(|d| d.name() == tool.name()) {
            return Err(AddToolError::NameTaken(tool.name().to_owned()));
        }
        dynamic.push(tool);
        self.invalidate();
        Ok(())
    }

    /// Remove a tool added at run time; false when there is none by that name (macro
    /// tools are switched off with `set_tool_enabled` instead).
    pub(crate) fn remove_tool(&self, name: &str) -> bool {
        // Locks are always taken in this order: disabled, dynamic, encoded.
        let mut disabled = write(&self.disabled_tools);
        let mut dynamic = write(&self.dynamic_tools);
        let Some(at) = dynamic.iter().position(|d| d.name() == name) else { return false };
        dynamic.remove(at);
        disabled.remove(name);
        self.invalidate();
        true
    }

    /// The finished response for `kind` in this era, encoded by `encode` the first time.
    pub(crate) fn encoded_list(
        &self,
        kind: ListKind,
        legacy: bool,
        encode: impl FnOnce(&Self) -> Result<String, Error>,
    ) -> Result<Arc<str>, Error> {
        if let Some(done) = read(&self.encoded).get(&(kind, legacy)) {
            return Ok(Arc::clone(done));
        }
        let version = self.version.load(Ordering::SeqCst);
        let text: Arc<str> = Arc::from(encode(self)?);
        let mut encoded = write(&self.encoded);
        if self.version.load(Ordering::SeqCst) == version {
            encoded.insert((kind, legacy), Arc::clone(&text));
        }
        Ok(text)
    }

    /// Whether the items serve `kind` (rather than a hand-written handler, or nothing).
    pub(crate) fn serves(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => self.serves_tools,
            ListKind::Prompts => !self.prompt_gets.is_empty(),
            ListKind::Resources | ListKind::ResourceTemplates => {
                !self.static_reads.is_empty() || !self.template_reads.is_empty()
            }
        }
    }

    /// Serve `kind` from the item tables, typed.
    pub(crate) fn list(&self, kind: ListKind) -> Result<serde_json::Value, Error> {
        let value = match kind {
            ListKind::Tools => serde_json::to_value(self.list_tools()),
            ListKind::Prompts => serde_json::to_value(self.list_prompts()),
            ListKind::Resources => serde_json::to_value(self.list_resources()),
            ListKind::ResourceTemplates => serde_json::to_value(self.list_templates()),
        };
        value.map_err(|e| Error::internal(e.to_string()))
    }

    /// Every scope the items declare, those of the dynamic tools registered now included,
    /// sorted, each once (`Server::declared_scopes`).
    pub(crate) fn declared_scopes(&self) -> Vec<String> {
        let dynamic = read(&self.dynamic_tools);
        if dynamic.iter().all(|d| d.required_scopes().is_empty()) {
            return self.declared_scopes.clone();
        }
        let added = dynamic.iter().flat_map(|d| d.required_scopes().iter().map(String::as_str));
        scopes::collect(self.declared_scopes.iter().map(String::as_str).chain(added))
    }

    /// Whether `auth` may see the item `name` of `table` in a list.
    fn visible(&self, table: &Names<Scopes>, name: &str, auth: Option<&AuthInfo>) -> bool {
        self.visible_with(table.get(name).copied().unwrap_or_default(), auth)
    }

    /// Whether `auth` may see an item requiring `required` in a list.
    fn visible_with<S: AsRef<str>>(&self, required: &[S], auth: Option<&AuthInfo>) -> bool {
        !self.hide_unauthorized || (auth.is_none() && self.scoped_items_without_auth) || scopes::holds(auth, required)
    }

    /// [`scopes::check`], except that a request with no `AuthInfo` at all passes when the
    /// server allows scoped items without authentication.
    fn check_scopes<S: AsRef<str>>(
        &self,
        auth: Option<&AuthInfo>,
        required: &[S],
        kind: &str,
        name: Option<&str>,
    ) -> Result<(), Error> {
        if auth.is_none() && self.scoped_items_without_auth {
            return Ok(());
        }
        scopes::check(auth, required, kind, name)
    }

    /// `tools/list` for the caller `auth` (without the tools it lacks scopes for, when hiding).
    pub(crate) fn list_tools_for(&self, auth: Option<&AuthInfo>) -> ListToolsResult {
        let mut result = self.list_tools();
        if !self.hide_unauthorized {
            return result;
        }
        let dynamic = read(&self.dynamic_tools);
        result.tools.retain(|t| match dynamic.iter().find(|d| d.name() == t.name) {
            Some(tool) => self.visible_with(tool.required_scopes(), auth),
            None => self.visible(&self.tool_scopes, &t.name, auth),
        });
        result
    }

    /// `prompts/list` for the caller `auth`.
    pub(crate) fn list_prompts_for(&self, auth: Option<&AuthInfo>) -> ListPromptsResult {
        let mut result = self.list_prompts();
        result.prompts.retain(|p| self.visible(&self.prompt_scopes, &p.name, auth));
        result
    }

    /// `resources/list` for the caller `auth`.
    pub(crate) fn list_resources_for(&self, auth: Option<&AuthInfo>) -> ListResourcesResult {
        let mut result = self.list_resources();
        result.resources.retain(|r| self.visible(&self.resource_scopes, &r.uri, auth));
        result
    }

    /// `resources/templates/list` for the caller `auth`.
    pub(crate) fn list_templates_for(&self, auth: Option<&AuthInfo>) -> ListResourceTemplatesResult {
        let mut result = self.list_templates();
        result.resource_templates.retain(|t| self.visible(&self.resource_scopes, &t.uri_template, auth));
        result
    }

    pub(crate) fn list_tools(&self) -> ListToolsResult {
        let disabled = read(&self.disabled_tools);
        let dynamic = read(&self.dynamic_tools);
        if disabled.is_empty() && dynamic.is_empty() {
            return self.tools.clone();
        }
        let tools = (self.tools.tools.iter())
            .chain(dynamic.iter().map(DynamicTool::definition))
            .filter(|t| !disabled.contains(&t.name))
            .cloned()
            .collect();
        ListToolsResult::new(tools)
    }

    /// Serve a `tools/call` from its params object. A macro tool reads what `_meta` says
    /// from its context, which a 2026-07-28 request's validated `_meta` built: for such a
    /// call `_meta` is not read a second time into `params.meta`. Legacy requests (whose
    /// `_meta` nothing else checks) and dynamic tools (which may read it) get it read.
    pub(crate) fn call_tool_object(
        &self,
        ctx: RequestContext,
        params: Option<Params>,
    ) -> BoxFuture<Result<CallToolOutcome, Error>> {
        let name = param_str(params.as_ref(), "name");
        let macro_tool = name.is_some_and(|name| self.tool_calls.contains_key(&*name));
        match CallToolParams::read_params(params.unwrap_or_default(), ctx.is_legacy() || !macro_tool) {
            Ok(params) => self.call_tool(ctx, params),
            Err(e) => {
                let error = Error::invalid_params(format!("Invalid params: {e}"));
                Box::pin(async move { Err(error) })
            }
        }
    }

    pub(crate) fn call_tool(
        &self,
        ctx: RequestContext,
        mut params: CallToolParams,
    ) -> BoxFuture<Result<CallToolOutcome, Error>> {
        let enabled = !read(&self.disabled_tools).contains(&params.name);
        if let Some(ToolEntry { call, scopes: required, task, .. }) =
            self.tool_calls.get(&params.name).filter(|_| enabled)
        {
            if let Err(error) = self.check_scopes(ctx.auth(), required, "tool", Some(&params.name)) {
                return Box::pin(async move { Err(error) });
            }
            if *task == TaskSupport::Required && !ctx.is_legacy() && !declares_tasks(ctx.client_capabilities()) {
                let error = Error::missing_client_capability(
                    format!("Tool {} runs only as a task: declare the tasks extension", params.name),
                    &tasks_capability(),
                );
                return Box::pin(async move { Err(error) });
            }
            // A macro tool reads its answers and state from the context alone: they move
            // there (a clone of the answers copied their map, one B-tree node of several KB).
            let ctx = Context::new(ctx, params.input_responses.take(), params.request_state.take());
            return call(ctx, params);
        }
        let context = |ctx| Context::new(ctx, params.input_responses.clone(), params.request_state.clone());
        let dynamic = read(&self.dynamic_tools).iter().find(|d| d.name() == params.name).cloned();
        match dynamic.filter(|_| enabled) {
            Some(tool) => {
                if let Err(error) = self.check_scopes(ctx.auth(), tool.required_scopes(), "tool", Some(&params.name)) {
                    return Box::pin(async move { Err(error) });
                }
                tool.call(context(ctx), params)
            }
            None => {
                let error = Error::unknown_tool(&params.name);
                Box::pin(async move { Err(error) })
            }
        }
    }

    pub(crate) fn list_prompts(&self) -> ListPromptsResult {
        let disabled = read(&self.disabled_prompts);
        if disabled.is_empty() {
            return self.prompts.clone();
        }
        let prompts = self.prompts.prompts.iter().filter(|p| !disabled.contains(&p.name)).cloned().collect();
        ListPromptsResult::new(prompts)
    }

    pub(crate) fn get_prompt(
        &self,
        ctx: RequestContext,
        params: GetPromptParams,
    ) -> BoxFuture<Result<GetPromptOutcome, Error>> {
        let enabled = !read(&self.disabled_prompts).contains(&params.name);
        match self.prompt_gets.get(&params.name).filter(|_| enabled) {
            Some((get, required)) => {
                if let Err(error) = self.check_scopes(ctx.auth(), required, "prompt", Some(&params.name)) {
                    return Box::pin(async move { Err(error) });
                }
                let ctx = Context::new(ctx, params.input_responses.clone(), params.request_state.clone());
                get(ctx, params)
            }
            None => {
                let error = Error::unknown_prompt(&params.name);
                Box::pin(async move { Err(error) })
            }
        }
    }

    pub(crate) fn list_resources(&self) -> ListResourcesResult {
        self.resources.clone()
    }

    pub(crate) fn list_templates(&self) -> ListResourceTemplatesResult {
        self.templates.clone()
    }

    pub(crate) fn read_resource(
        &self,
        ctx: RequestContext,
        params: ReadResourceParams,
    ) -> BoxFuture<Result<ReadResourceOutcome, Error>> {
        let context = |ctx| Context::new(ctx, params.input_responses.clone(), params.request_state.clone());
        let refused =
            |error: Error| -> BoxFuture<Result<ReadResourceOutcome, Error>> { Box::pin(async move { Err(error) }) };
        if let Some((read, required)) = self.static_reads.get(&params.uri) {
            if let Err(error) = self.check_scopes(ctx.auth(), required, "resource", Some(&params.uri)) {
                return refused(error);
            }
            return read(context(ctx), params.clone(), Variables::new());
        }
        for (template, read, required) in &self.template_reads {
            if let Some(vars) = template.matches(&params.uri) {
                if let Err(error) = self.check_scopes(ctx.auth(), required, "resource template", None) {
                    return refused(error);
                }
                return read(context(ctx), params.clone(), vars);
            }
        }
        let error = Error::resource_not_found(&params.uri);
        Box::pin(async move { Err(error) })
    }
    /// `completion/complete` from the items' completers: a known prompt or template
    /// without a completer for the argument gets no values; an unknown one is `-32602`.
    pub(crate) fn complete(
        &self,
        ctx: RequestContext,
        params: CompleteParams,
    ) -> BoxFuture<Result<CompleteResult, Error>> {
        let argument = params.argument.name.as_str();
        let completer = match &params.reference {
            CompletionReference::Prompt { name, .. } => {
                let enabled = !read(&self.disabled_prompts).contains(name);
                if !self.prompt_gets.contains_key(name) || !enabled {
                    let error = Error::unknown_prompt(name);
                    return Box::pin(async move { Err(error) });
                }
                let required = self.prompt_scopes.get(name).copied().unwrap_or_default();
                if let Err(error) = self.check_scopes(ctx.auth(), required, "prompt", Some(name)) {
                    return Box::pin(async move { Err(error) });
                }
                self.completers.for_prompt(name, argument)
            }
            CompletionReference::Resource { uri } => {
                let known = self.templates.resource_templates.iter().any(|t| &t.uri_template == uri)
                    || self.static_reads.contains_key(uri);
                if !known {
                    let error = Error::invalid_params(format!("Unknown resource template: {uri}"));
                    return Box::pin(async move { Err(error) });
                }
                let required = self.resource_scopes.get(uri).copied().unwrap_or_default();
                if let Err(error) = self.check_scopes(ctx.auth(), required, "resource", Some(uri)) {
                    return Box::pin(async move { Err(error) });
                }
                self.completers.for_template(uri, argument)
            }
        };
        let Some(completer) = completer else {
            return Box::pin(async { Ok(CompleteResult::new(Vec::new())) });
        };
        let ctx = Context::new(ctx, None, None);
        let filled = CompletionArguments::from(params.context.and_then(|c| c.arguments).unwrap_or_default());
        let future = completer(ctx, params.argument.value, filled);
        Box::pin(async move {
            let completion = super::completion::capped(future.await?);
            Ok(CompleteResult { completion, ..Default::default() })
        })
    }
}
