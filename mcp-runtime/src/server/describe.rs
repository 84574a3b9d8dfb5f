//! A Markdown description of everything a server offers, for `--describe` and docs.

use std::fmt::Write as _;

use serde_json::Value;

use super::routes::MethodHandler;
use crate::Server;
use crate::handler::RequestContext;
use crate::protocol::PaginatedParams;

fn schema_block(out: &mut String, title: &str, schema: &impl serde::Serialize) {
    let pretty = serde_json::to_string_pretty(schema).unwrap_or_default();
    let _ = write!(out, "\n{title}:\n\n```json\n{pretty}\n```\n");
}

fn parameters_table(out: &mut String, schema: &serde_json::Map<String, Value>) {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return;
    };
    if props.is_empty() {
        return;
    }
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    out.push_str("\n| Parameter | Type | Required | Description |\n|---|---|---|---|\n");
    for (name, prop) in props {
        let kind = prop.get("type").map_or_else(|| "any".to_owned(), |t| t.to_string().replace('"', ""));
        let description = prop.get("description").and_then(Value::as_str).unwrap_or("").replace('\n', " ");
        let req = if required.contains(&name.as_str()) { "yes" } else { "no" };
        let _ = writeln!(out, "| `{name}` | {kind} | {req} | {description} |");
    }
}

impl Server {
    /// Call a list handler once with no cursor, as the server itself.
    async fn list_once<R>(&self, handler: &Option<MethodHandler<PaginatedParams, R>>) -> Option<R> {
        let handler = handler.as_ref()?;
        handler(RequestContext::internal(self.inner().handle.clone()), PaginatedParams::default()).await.ok()
    }

    /// Every tool, prompt, resource and resource template as Markdown.
    pub async fn describe_markdown(&self) -> String {
        let mut out = String::new();
        let info = self.info();
        let _ = writeln!(out, "# {} {}", info.name, info.version);
        let h = &self.inner().routes.handlers;
        if let Some(result) = self.list_once(&h.list_tools).await {
            let _ = writeln!(out, "\n## Tools ({})", result.tools.len());
            for tool in &result.tools {
                let _ = writeln!(out, "\n### `{}`\n", tool.name);
                if let Some(d) = &tool.description {
                    let _ = writeln!(out, "{d}");
                }
                parameters_table(&mut out, &tool.input_schema);
                schema_block(&mut out, "Input schema", &tool.input_schema);
                if let Some(output) = &tool.output_schema {
                    schema_block(&mut out, "Output schema", output);
                }
            }
        }
        if let Some(result) = self.list_once(&h.list_prompts).await {
            let _ = writeln!(out, "\n## Prompts ({})", result.prompts.len());
            for prompt in &result.prompts {
                let _ = writeln!(out, "\n### `{}`\n", prompt.name);
                if let Some(d) = &prompt.description {
                    let _ = writeln!(out, "{d}");
                }
                for arg in prompt.arguments.iter().flatten() {
                    let req = if arg.required == Some(true) { "required" } else { "optional" };
                    let _ = writeln!(out, "- `{}` ({req}): {}", arg.name, arg.description.as_deref().unwrap_or(""));
                }
            }
        }
        if let Some(result) = self.list_once(&h.list_resources).await {
            let _ = writeln!(out, "\n## Resources ({})\n", result.resources.len());
            for r in &result.resources {
                let mime = r.mime_type.as_deref().unwrap_or("");
                let _ = writeln!(out, "- `{}` ({}) {mime}: {}", r.uri, r.name, r.description.as_deref().unwrap_or(""));
            }
        }
        if let Some(result) = self.list_once(&h.list_resource_templates).await {
            let _ = writeln!(out, "\n## Resource templates ({})\n", result.resource_templates.len());
            for t in &result.resource_templates {
                let mime = t.mime_type.as_deref().unwrap_or("");
                let _ = writeln!(
                    out,
                    "- `{}` ({}) {mime}: {}",
                    t.uri_template,
                    t.name,
                    t.description.as_deref().unwrap_or("")
                );
            }
        }
        out
    }
}
