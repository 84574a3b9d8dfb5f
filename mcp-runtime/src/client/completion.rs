//! [`Client::complete`]: ask the server to complete a prompt argument or a resource
//! template variable (`completion/complete`).

use std::collections::BTreeMap;

use super::{Client, ClientError};
use crate::protocol::{
    CompleteParams, CompleteResult, CompletionArgument, CompletionContext, CompletionReference, methods,
};

impl Client {
    /// Complete `argument` of a prompt or resource template from the text typed so far.
    /// The request carries the era's `_meta` (2026-07-28) or none (a 2025-11-25 session);
    /// both results read the same. A server without the `completions` capability answers
    /// `-32601`, and an unknown prompt or template `-32602`, as [`ClientError::Rpc`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// use mcp::client::Client;
    /// use mcp::protocol::CompletionReference;
    ///
    /// fn languages(typed: &str) -> Vec<&'static str> {
    ///     ["python", "rust", "ruby"].into_iter().filter(|l| l.starts_with(typed)).collect()
    /// }
    ///
    /// /// Review some code.
    /// #[mcp::prompt]
    /// fn review(#[mcp(complete = languages)] language: String) -> String {
    ///     format!("Review this {language} code.")
    /// }
    ///
    /// let server = mcp::Server::builder("s", "1.0.0").prompt::<review>().build();
    /// let client = Client::builder().connect_in_process(&server).await?;
    /// let result = client.complete(CompletionReference::prompt("review"), "language", "r").await?;
    /// assert_eq!(result.completion.values, ["rust", "ruby"]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, ClientError> {
        self.complete_with(reference, argument, value, BTreeMap::new()).await
    }

    /// [`complete`](Self::complete), telling the server the arguments filled in already
    /// (`context.arguments`), so it can narrow the values (a city for the country chosen).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// use std::collections::BTreeMap;
    /// use mcp::client::Client;
    /// use mcp::items::completion::CompletionArguments;
    /// use mcp::protocol::CompletionReference;
    ///
    /// fn cities(typed: &str, filled: CompletionArguments) -> Vec<&'static str> {
    ///     let all: &[&'static str] = match filled.get("country") {
    ///         Some("fr") => &["Paris", "Lyon"],
    ///         _ => &[],
    ///     };
    ///     all.iter().copied().filter(|c| c.starts_with(typed)).collect()
    /// }
    ///
    /// /// The weather in a city.
    /// #[mcp::resource("weather://{country}/{city}")]
    /// fn weather(country: String, #[mcp(complete = cities)] city: String) -> String {
    ///     format!("Sunny in {city}, {country}.")
    /// }
    ///
    /// let server = mcp::Server::builder("s", "1.0.0").resource::<weather>().build();
    /// let client = Client::builder().connect_in_process(&server).await?;
    /// let filled = BTreeMap::from([("country".to_owned(), "fr".to_owned())]);
    /// let template = CompletionReference::resource("weather://{country}/{city}");
    /// let result = client.complete_with(template, "city", "P", filled).await?;
    /// assert_eq!(result.completion.values, ["Paris"]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn complete_with(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        filled: BTreeMap<String, String>,
    ) -> Result<CompleteResult, ClientError> {
        let params = CompleteParams {
            meta: None,
            reference,
            argument: CompletionArgument { name: argument.to_owned(), value: value.to_owned() },
            context: if filled.is_empty() { None } else { Some(CompletionContext { arguments: Some(filled) }) },
        };
        let params = serde_json::to_value(params)
            .map_err(|e| ClientError::Protocol(format!("cannot encode completion/complete: {e}")))?;
        let result = self.request(methods::COMPLETION_COMPLETE, params).await?;
        serde_json::from_value(result)
            .map_err(|e| ClientError::Protocol(format!("malformed completion/complete result: {e}")))
    }
}
