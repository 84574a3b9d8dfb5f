//! The registry of macro-defined items and the handlers that serve them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use super::problem::{BuildProblem, ItemKind};
use super::template::{UriTemplate, Variables};
use super::{PromptDef, ResourceDef, ResourceKind, ToolDef};
use crate::Error;
use crate::handler::{BoxFuture, Context, RequestContext};
use crate::protocol::{
    CallToolOutcome, CallToolParams, GetPromptOutcome, GetPromptParams, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Prompt, ReadResourceOutcome, ReadResourceParams, Resource, ResourceTemplate,
    Tool,
};

type ToolCall = fn(Context, CallToolParams) -> BoxFuture<Result<CallToolOutcome, Error>>;
type PromptGet = fn(Context, GetPromptParams) -> BoxFuture<Result<GetPromptOutcome, Error>>;
type ResourceRead = fn(Context, ReadResourceParams, Variables) -> BoxFuture<Result<ReadResourceOutcome, Error>>;

/// Items registered on a server builder.
#[derive(Default)]
pub(crate) struct Items {
    tools: Vec<Tool>,
    tool_calls: HashMap<String, ToolCall>,
    prompts: Vec<Prompt>,
    prompt_gets: HashMap<String, PromptGet>,
    resources: Vec<Resource>,
    static_reads: HashMap<String, ResourceRead>,
    templates: Vec<(ResourceTemplate, UriTemplate, ResourceRead)>,
    /// Registration problems, reported by `try_build`.
    pub(crate) errors: Vec<BuildProblem>,
    /// Inline the `$defs` of every tool's schemas (`ServerBuilder::inline_schema_refs`).
    pub(crate) inline_schema_refs: bool,
}

impl Items {
    pub(crate) fn add_tool<T: ToolDef>(&mut self) {
        let tool = T::definition();
        if self.tool_calls.insert(tool.name.clone(), T::call).is_some() {
            self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Tool, name: tool.name.clone() });
            return;
        }
        self.tools.push(tool);
    }

    pub(crate) fn add_prompt<P: PromptDef>(&mut self) {
        let prompt = P::definition();
        if self.prompt_gets.insert(prompt.name.clone(), P::get).is_some() {
            self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Prompt, name: prompt.name.clone() });
            return;
        }
        self.prompts.push(prompt);
    }

    pub(crate) fn add_resource<R: ResourceDef>(&mut self) {
        match R::definition() {
            ResourceKind::Static(resource) => {
                if self.static_reads.insert(resource.uri.clone(), R::read).is_some() {
                    self.errors.push(BuildProblem::Duplicate { kind: ItemKind::Resource, name: resource.uri.clone() });
                    return;
                }
                self.resources.push(resource);
            }
            ResourceKind::Template(template) => {
                if self.templates.iter().any(|(t, _, _)| t.uri_template == template.uri_template) {
                    self.errors.push(BuildProblem::Duplicate {
                        kind: ItemKind::ResourceTemplate,
                        name: template.uri_template.clone(),
                    });
                    return;
                }
                match UriTemplate::parse(&template.uri_template) {
                    Ok(parsed) => self.templates.push((template, parsed, R::read)),
                    Err(e) => self.errors.push(BuildProblem::InvalidTemplate {
                        template: template.uri_template.clone(),
                        reason: e.to_string(),
                    }),
                }
            }
        }
    }

    pub(crate) fn has_tools(&self) -> bool {
        !self.tools.is_empty()
    }

    pub(crate) fn has_prompts(&self) -> bool {
        !self.prompts.is_empty()
    }

    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    /// Split into shared tables the handlers close over.
    pub(crate) fn into_shared(self) -> Arc<SharedItems> {
        Arc::new(SharedItems {
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
                resource_templates: self.templates.iter().map(|(t, _, _)| t.clone()).collect(),
                ..Default::default()
            },
            static_reads: self.static_reads,
            template_reads: self.templates.into_iter().map(|(_, parsed, read)| (parsed, read)).collect(),
            disabled_tools: RwLock::default(),
            disabled_prompts: RwLock::default(),
            encoded: RwLock::default(),
        })
    }
}

/// The registered items, shared by the handlers. Definitions are computed once.
pub(crate) struct SharedItems {
    tools: ListToolsResult,
    tool_calls: HashMap<String, ToolCall>,
    prompts: ListPromptsResult,
    prompt_gets: HashMap<String, PromptGet>,
    resources: ListResourcesResult,
    templates: ListResourceTemplatesResult,
    static_reads: HashMap<String, ResourceRead>,
    template_reads: Vec<(UriTemplate, ResourceRead)>,
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
}

impl SharedItems {
    /// Take a registered tool out of service (or back); false if there is no such tool.
    pub(crate) fn set_tool_enabled(&self, name: &str, enabled: bool) -> bool {
        if !self.tool_calls.contains_key(name) {
            return false;
        }
        let mut disabled = write(&self.disabled_tools);
        write(&self.encoded).clear();
        if enabled { disabled.remove(name) } else { disabled.insert(name.to_owned()) }
    }

    /// Take a registered prompt out of service (or back); false if there is no such prompt.
    pub(crate) fn set_prompt_enabled(&self, name: &str, enabled: bool) -> bool {
        if !self.prompt_gets.contains_key(name) {
            return false;
        }
        let mut disabled = write(&self.disabled_prompts);
        write(&self.encoded).clear();
        if enabled { disabled.remove(name) } else { disabled.insert(name.to_owned()) }
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
        let text: Arc<str> = Arc::from(encode(self)?);
        write(&self.encoded).insert((kind, legacy), Arc::clone(&text));
        Ok(text)
    }

    /// Whether the items serve `kind` (rather than a hand-written handler, or nothing).
    pub(crate) fn serves(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => !self.tool_calls.is_empty(),
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

    pub(crate) fn list_tools(&self) -> ListToolsResult {
        let disabled = read(&self.disabled_tools);
        if disabled.is_empty() {
            return self.tools.clone();
        }
        let tools = self.tools.tools.iter().filter(|t| !disabled.contains(&t.name)).cloned().collect();
        ListToolsResult::new(tools)
    }

    pub(crate) fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolParams,
    ) -> BoxFuture<Result<CallToolOutcome, Error>> {
        let enabled = !read(&self.disabled_tools).contains(&params.name);
        match self.tool_calls.get(&params.name).filter(|_| enabled) {
            Some(call) => {
                let ctx = Context::new(ctx, params.input_responses.clone(), params.request_state.clone());
                call(ctx, params)
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
            Some(get) => {
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
        if let Some(read) = self.static_reads.get(&params.uri) {
            return read(context(ctx), params.clone(), Variables::new());
        }
        for (template, read) in &self.template_reads {
            if let Some(vars) = template.matches(&params.uri) {
                return read(context(ctx), params.clone(), vars);
            }
        }
        let error = Error::resource_not_found(&params.uri);
        Box::pin(async move { Err(error) })
    }
}
