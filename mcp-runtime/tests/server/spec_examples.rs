//! The spec's canonical wire examples (`spec/<version>/examples/<TypeName>/*.json`)
//! must survive `serialize(deserialize(example)) == example` through our serde model, and
//! must themselves be valid against the spec's `schema.json`.
//!
//! The spec folder is `$MCP_SPEC_DIR` when set, else the repository's `spec/`;
//! when it is missing these tests fail rather than pass with nothing checked.

use mcp_testkit::spec as common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcp::protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The spec version whose examples are checked: the one this crate implements.
const VERSION: &str = LATEST_PROTOCOL_VERSION;

/// Fewer files than this means the examples folder was not read properly.
const MIN_FILES: usize = 128;

/// Example files that are deliberately not round-tripped, as `(folder, file)`.
const EXCLUDED: &[(&str, &str)] = &[
    // `ListRootsRequest` is an input-request entry (`{method, params?}`, as carried in
    // `InputRequiredResult.inputRequests`), yet this example has an `"id"` and no
    // `"jsonrpc"`. It is neither an `InputRequest` (which has no id, so the id would be
    // dropped on the way back) nor a JSON-RPC request (which needs `"jsonrpc": "2.0"`).
    ("ListRootsRequest", "list-roots-request.json"),
];

/// Checks one example against one of our types.
type Check = fn(&Value) -> Result<(), String>;

/// One row of the table: a spec folder and a Rust type its examples must round-trip through.
struct Entry {
    folder: &'static str,
    ty: &'static str,
    check: Check,
}

/// `rt!("Folder" => Type)`, or `rt!("Folder" => Enum as Enum::Variant(_))` to also require
/// that the example lands in that variant.
macro_rules! rt {
    ($folder:literal => $ty:ty) => {
        Entry { folder: $folder, ty: stringify!($ty), check: |v| roundtrip::<$ty>(v, "", |_| true) }
    };
    ($folder:literal => $ty:ty as $variant:pat) => {
        Entry {
            folder: $folder,
            ty: concat!(stringify!($ty), " as ", stringify!($variant)),
            check: |v| roundtrip::<$ty>(v, stringify!($variant), |x| matches!(x, $variant)),
        }
    };
}

/// Every example folder and the type(s) of ours it maps to. A folder may appear more than once.
fn table() -> Vec<Entry> {
    vec![
        // Content blocks: the `type` tag lives on the enums, so blocks go through them.
        rt!("AudioContent" => ContentBlock as ContentBlock::Audio(_)),
        rt!("AudioContent" => SamplingContent as SamplingContent::Audio(_)),
        rt!("ImageContent" => ContentBlock as ContentBlock::Image(_)),
        rt!("ImageContent" => SamplingContent as SamplingContent::Image(_)),
        rt!("TextContent" => ContentBlock as ContentBlock::Text(_)),
        rt!("TextContent" => SamplingContent as SamplingContent::Text(_)),
        rt!("ResourceLink" => ContentBlock as ContentBlock::ResourceLink(_)),
        rt!("EmbeddedResource" => ContentBlock as ContentBlock::Resource(_)),
        rt!("ToolUseContent" => SamplingContent as SamplingContent::ToolUse(_)),
        rt!("ToolResultContent" => SamplingContent as SamplingContent::ToolResult(_)),
        rt!("TextResourceContents" => TextResourceContents),
        rt!("TextResourceContents" => ResourceContents as ResourceContents::Text(_)),
        rt!("BlobResourceContents" => BlobResourceContents),
        rt!("BlobResourceContents" => ResourceContents as ResourceContents::Blob(_)),
        // Elicitation schemas, standalone and as the untagged `PrimitiveSchema`.
        rt!("BooleanSchema" => BooleanSchema),
        rt!("BooleanSchema" => PrimitiveSchema as PrimitiveSchema::Boolean(_)),
        rt!("NumberSchema" => NumberSchema),
        rt!("NumberSchema" => PrimitiveSchema as PrimitiveSchema::Number(_)),
        rt!("StringSchema" => StringSchema),
        rt!("StringSchema" => PrimitiveSchema as PrimitiveSchema::String(_)),
        rt!("TitledMultiSelectEnumSchema" => TitledMultiSelectEnumSchema),
        rt!("TitledMultiSelectEnumSchema" => PrimitiveSchema as PrimitiveSchema::TitledMultiSelect(_)),
        rt!("TitledSingleSelectEnumSchema" => TitledSingleSelectEnumSchema),
        rt!("TitledSingleSelectEnumSchema" => PrimitiveSchema as PrimitiveSchema::TitledSingleSelect(_)),
        rt!("UntitledMultiSelectEnumSchema" => UntitledMultiSelectEnumSchema),
        rt!("UntitledMultiSelectEnumSchema" => PrimitiveSchema as PrimitiveSchema::UntitledMultiSelect(_)),
        rt!("UntitledSingleSelectEnumSchema" => UntitledSingleSelectEnumSchema),
        rt!("UntitledSingleSelectEnumSchema" => PrimitiveSchema as PrimitiveSchema::UntitledSingleSelect(_)),
        // Capabilities and small shared types.
        rt!("ClientCapabilities" => ClientCapabilities),
        rt!("ServerCapabilities" => ServerCapabilities),
        rt!("ModelPreferences" => ModelPreferences),
        rt!("Resource" => Resource),
        rt!("Root" => Root),
        rt!("SamplingMessage" => SamplingMessage),
        rt!("Tool" => Tool),
        // Request params.
        rt!("CallToolRequestParams" => CallToolParams),
        rt!("CompleteRequestParams" => CompleteParams),
        rt!("GetPromptRequestParams" => GetPromptParams),
        rt!("PaginatedRequestParams" => PaginatedParams),
        rt!("CreateMessageRequestParams" => CreateMessageParams),
        rt!("ElicitRequestFormParams" => ElicitFormParams),
        rt!("ElicitRequestFormParams" => ElicitRequestParams as ElicitRequestParams::Form(_)),
        rt!("ElicitRequestURLParams" => ElicitUrlParams),
        rt!("ElicitRequestURLParams" => ElicitRequestParams as ElicitRequestParams::Url(_)),
        // Requests, with typed params.
        rt!("CallToolRequest" => JsonRpcRequest<CallToolParams>),
        rt!("CompleteRequest" => JsonRpcRequest<CompleteParams>),
        rt!("DiscoverRequest" => JsonRpcRequest<MetaOnlyParams>),
        rt!("GetPromptRequest" => JsonRpcRequest<GetPromptParams>),
        rt!("ListPromptsRequest" => JsonRpcRequest<PaginatedParams>),
        rt!("ListResourceTemplatesRequest" => JsonRpcRequest<PaginatedParams>),
        rt!("ListResourcesRequest" => JsonRpcRequest<PaginatedParams>),
        rt!("ListToolsRequest" => JsonRpcRequest<PaginatedParams>),
        rt!("ReadResourceRequest" => JsonRpcRequest<ReadResourceParams>),
        rt!("SubscriptionsListenRequest" => JsonRpcRequest<SubscriptionsListenParams>),
        // Input requests (server → client questions inside `InputRequiredResult`) and answers.
        rt!("CreateMessageRequest" => InputRequest as InputRequest::Sample(_)),
        rt!("ElicitRequest" => InputRequest as InputRequest::Elicit(_)),
        rt!("InputRequests" => InputRequests),
        rt!("InputResponses" => InputResponses),
        rt!("CreateMessageResult" => CreateMessageResult),
        rt!("CreateMessageResult" => InputResponse as InputResponse::Sample(_)),
        rt!("ElicitResult" => ElicitResult),
        rt!("ElicitResult" => InputResponse as InputResponse::Elicit(_)),
        rt!("ListRootsResult" => ListRootsResult),
        rt!("ListRootsResult" => InputResponse as InputResponse::ListRoots(_)),
        // Results.
        rt!("CallToolResult" => CallToolResult),
        rt!("CallToolResult" => CallToolOutcome as Outcome::Complete(_)),
        rt!("CompleteResult" => CompleteResult),
        rt!("DiscoverResult" => DiscoverResult),
        rt!("GetPromptResult" => GetPromptResult),
        rt!("GetPromptResult" => GetPromptOutcome as Outcome::Complete(_)),
        rt!("InputRequiredResult" => InputRequiredResult),
        rt!("InputRequiredResult" => CallToolOutcome as Outcome::InputRequired(_)),
        rt!("ListPromptsResult" => ListPromptsResult),
        rt!("ListResourceTemplatesResult" => ListResourceTemplatesResult),
        rt!("ListResourcesResult" => ListResourcesResult),
        rt!("ListToolsResult" => ListToolsResult),
        rt!("ReadResourceResult" => ReadResourceResult),
        rt!("ReadResourceResult" => ReadResourceOutcome as Outcome::Complete(_)),
        rt!("SubscriptionsListenResult" => SubscriptionsListenResult),
        // Result responses.
        rt!("CallToolResultResponse" => JsonRpcResultResponse<CallToolOutcome>),
        rt!("CompleteResultResponse" => JsonRpcResultResponse<CompleteResult>),
        rt!("DiscoverResultResponse" => JsonRpcResultResponse<DiscoverResult>),
        rt!("GetPromptResultResponse" => JsonRpcResultResponse<GetPromptOutcome>),
        rt!("ListPromptsResultResponse" => JsonRpcResultResponse<ListPromptsResult>),
        rt!("ListResourceTemplatesResultResponse" => JsonRpcResultResponse<ListResourceTemplatesResult>),
        rt!("ListResourcesResultResponse" => JsonRpcResultResponse<ListResourcesResult>),
        rt!("ListToolsResultResponse" => JsonRpcResultResponse<ListToolsResult>),
        rt!("ReadResourceResultResponse" => JsonRpcResultResponse<ReadResourceOutcome>),
        rt!("SubscriptionsListenResultResponse" => JsonRpcResultResponse<SubscriptionsListenResult>),
        // Notifications and their params.
        rt!("CancelledNotification" => JsonRpcNotification<CancelledParams>),
        rt!("CancelledNotificationParams" => CancelledParams),
        rt!("LoggingMessageNotification" => JsonRpcNotification<LoggingMessageParams>),
        rt!("LoggingMessageNotificationParams" => LoggingMessageParams),
        rt!("ProgressNotification" => JsonRpcNotification<ProgressParams>),
        rt!("ProgressNotificationParams" => ProgressParams),
        rt!("PromptListChangedNotification" => JsonRpcNotification<NotificationParams>),
        rt!("ResourceListChangedNotification" => JsonRpcNotification<NotificationParams>),
        rt!("ToolListChangedNotification" => JsonRpcNotification<NotificationParams>),
        rt!("ResourceUpdatedNotification" => JsonRpcNotification<ResourceUpdatedParams>),
        rt!("ResourceUpdatedNotificationParams" => ResourceUpdatedParams),
        rt!("SubscriptionsAcknowledgedNotification" => JsonRpcNotification<SubscriptionsAcknowledgedParams>),
        // Errors: bare error objects and whole error responses.
        rt!("InternalError" => Error),
        rt!("InvalidParamsError" => Error),
        rt!("MethodNotFoundError" => Error),
        rt!("ParseError" => Error),
        rt!("HeaderMismatchError" => JsonRpcErrorResponse),
        rt!("MissingRequiredClientCapabilityError" => JsonRpcErrorResponse),
        rt!("UnsupportedProtocolVersionError" => JsonRpcErrorResponse),
    ]
}

/// Deserialize `original` into `T`, check the variant, serialize back and compare.
fn roundtrip<T: DeserializeOwned + Serialize>(
    original: &Value,
    variant: &str,
    is_variant: impl Fn(&T) -> bool,
) -> Result<(), String> {
    let typed: T = serde_json::from_value(original.clone()).map_err(|e| format!("does not deserialize: {e}"))?;
    if !is_variant(&typed) {
        return Err(format!("deserialized into the wrong variant (expected {variant})"));
    }
    let back = serde_json::to_value(&typed).map_err(|e| format!("does not serialize back: {e}"))?;
    compare(original, &back)
}

/// Structural equality, with the differing JSON pointers listed when it fails.
fn compare(original: &Value, back: &Value) -> Result<(), String> {
    if original == back {
        return Ok(());
    }
    let mut diffs = Vec::new();
    diff("", original, back, &mut diffs);
    Err(format!("round-trip changed the value:\n      {}", diffs.join("\n      ")))
}

fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, a_value) in a {
                let here = format!("{path}/{key}");
                match b.get(key) {
                    Some(b_value) => diff(&here, a_value, b_value, out),
                    None => out.push(format!("{here}: dropped (was {a_value})")),
                }
            }
            for (key, b_value) in b.iter().filter(|(key, _)| !a.contains_key(*key)) {
                out.push(format!("{path}/{key}: added ({b_value})"));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (a_item, b_item)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}/{i}"), a_item, b_item, out);
            }
        }
        _ if want != got => out.push(format!("{}: {want} became {got}", if path.is_empty() { "/" } else { path })),
        _ => {}
    }
}

/// A JSON-RPC example must also decode as a generic [`JsonRpcMessage`] of the kind its
/// folder name says, and encode back unchanged.
fn check_generic_message(folder: &str, original: &Value) -> Result<(), String> {
    let message = JsonRpcMessage::from_value(original.clone())
        .map_err(|e| format!("JsonRpcMessage: does not decode: {}", e.message))?;
    let kind_ok = match &message {
        JsonRpcMessage::Request(_) => folder.ends_with("Request"),
        JsonRpcMessage::Notification(_) => folder.ends_with("Notification"),
        JsonRpcMessage::Result(_) => folder.ends_with("Response"),
        JsonRpcMessage::Error(_) => folder.ends_with("Error"),
    };
    if !kind_ok {
        return Err(format!("JsonRpcMessage: decoded as the wrong kind: {message:?}"));
    }
    let back = serde_json::to_value(&message).map_err(|e| format!("JsonRpcMessage: does not serialize: {e}"))?;
    compare(original, &back).map_err(|e| format!("JsonRpcMessage: {e}"))
}

/// Subfolders of the examples folder, sorted.
fn example_folders() -> Vec<String> {
    let dir = common::examples_dir(VERSION);
    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display())))
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    folders
}

/// The `*.json` files of one example folder, sorted.
fn example_files(folder: &str) -> Vec<PathBuf> {
    let dir = common::examples_dir(VERSION).join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display())).path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn is_excluded(folder: &str, file: &str) -> bool {
    EXCLUDED.iter().any(|&(f, n)| f == folder && n == file)
}

/// One example by folder and file name.
fn example(folder: &str, file: &str) -> Value {
    common::read_json(&common::examples_dir(VERSION).join(folder).join(file))
}

fn parse<T: DeserializeOwned>(folder: &str, file: &str) -> T {
    serde_json::from_value(example(folder, file))
        .unwrap_or_else(|e| panic!("{folder}/{file} does not deserialize into {}: {e}", std::any::type_name::<T>()))
}

#[test]
fn every_spec_example_round_trips() {
    let table = table();
    let folders = example_folders();
    let mut failures = Vec::new();
    let mut files_checked = 0;
    let mut checks = 0;

    // Table and exclusions must match the folder exactly, so nothing is skipped silently.
    let mapped: BTreeSet<&str> = table.iter().map(|e| e.folder).collect();
    for folder in &folders {
        let all_excluded = example_files(folder).iter().all(|f| is_excluded(folder, &file_name(f)));
        if !mapped.contains(folder.as_str()) && !all_excluded {
            failures.push(format!("{folder}: no type mapped to this example folder; add it to table()"));
        }
    }
    for folder in mapped.iter().filter(|m| !folders.iter().any(|f| f == *m)) {
        failures.push(format!("{folder}: mapped in table() but no such example folder"));
    }
    for (folder, file) in EXCLUDED {
        if !common::examples_dir(VERSION).join(folder).join(file).is_file() {
            failures.push(format!("{folder}/{file}: excluded but does not exist; drop the exclusion"));
        }
    }

    for folder in &folders {
        for path in example_files(folder) {
            let file = file_name(&path);
            if is_excluded(folder, &file) {
                continue;
            }
            let original = common::read_json(&path);
            files_checked += 1;
            for entry in table.iter().filter(|e| e.folder == folder) {
                checks += 1;
                if let Err(e) = (entry.check)(&original) {
                    failures.push(format!("{folder}/{file} as {}: {e}", entry.ty));
                }
            }
            if original.get("jsonrpc").is_some() {
                checks += 1;
                if let Err(e) = check_generic_message(folder, &original) {
                    failures.push(format!("{folder}/{file}: {e}"));
                }
            }
        }
    }

    println!(
        "round-tripped {files_checked} example files from {} folders ({checks} checks, {} excluded)",
        folders.len(),
        EXCLUDED.len()
    );
    assert!(failures.is_empty(), "{} spec example failure(s):\n  {}", failures.len(), failures.join("\n  "));
    assert!(
        files_checked >= MIN_FILES,
        "only {files_checked} example files were checked, expected at least {MIN_FILES}"
    );
}

#[test]
fn spec_examples_have_the_expected_fields() {
    // InputRequiredResult: both questions, typed, and the state.
    let file = "input-required-result-with-elicitation-and-sampling-and-request-state.json";
    let result: InputRequiredResult = parse("InputRequiredResult", file);
    assert_eq!(result.result_type, ResultType::InputRequired);
    assert_eq!(result.request_state.as_deref(), Some("eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"));
    let requests = result.input_requests.as_ref().expect("inputRequests");
    assert_eq!(requests.keys().map(String::as_str).collect::<Vec<_>>(), ["capital_of_france", "github_login"]);
    match &requests["github_login"] {
        InputRequest::Elicit(ElicitRequestParams::Form(form)) => {
            assert_eq!(form.mode, None, "the example omits mode; it must stay absent");
            assert_eq!(form.message, "Please provide your GitHub username");
            assert!(matches!(form.requested_schema.properties.get("name"), Some(PrimitiveSchema::String(_))));
            assert_eq!(form.requested_schema.required.as_deref(), Some(&["name".to_owned()][..]));
        }
        other => panic!("github_login should be a form elicitation, got {other:?}"),
    }
    match &requests["capital_of_france"] {
        InputRequest::Sample(params) => {
            assert_eq!(params.max_tokens, 100);
            assert_eq!(params.messages.len(), 1);
            assert_eq!(params.messages[0].role, Role::User);
            match &params.messages[0].content {
                OneOrMany::One(SamplingContent::Text(text)) => assert_eq!(text.text, "What is the capital of France?"),
                other => panic!("expected one text block, got {other:?}"),
            }
        }
        other => panic!("capital_of_france should be a sampling request, got {other:?}"),
    }
    assert_eq!(requests["github_login"].method(), methods::ELICITATION_CREATE);
    assert_eq!(requests["capital_of_france"].method(), methods::SAMPLING_CREATE_MESSAGE);
    let outcome: CallToolOutcome = parse("InputRequiredResult", file);
    assert_eq!(outcome, Outcome::InputRequired(result));

    // The excluded ListRootsRequest example is a `roots/list` input request once its
    // stray id is set aside.
    let mut list_roots = example("ListRootsRequest", "list-roots-request.json");
    list_roots.as_object_mut().expect("an object").remove("id");
    let list_roots: InputRequest = serde_json::from_value(list_roots).expect("a roots/list input request");
    assert_eq!(list_roots, InputRequest::ListRoots(None));

    let state_only: InputRequiredResult =
        parse("InputRequiredResult", "input-required-result-with-request-state-only.json");
    assert!(state_only.input_requests.is_none());
    assert!(state_only.is_well_formed());

    // InputResponses: the untagged answers land in the right variants.
    let responses: InputResponses = parse("InputResponses", "elicitation-and-sampling-input-responses.json");
    let login = responses["github_login"].as_elicit().expect("github_login is an elicitation answer");
    assert_eq!(login.action, ElicitAction::Accept);
    let sample = responses["capital_of_france"].as_sample().expect("capital_of_france is a sampling answer");
    assert_eq!(sample.role, Role::Assistant);
    assert_eq!(sample.stop_reason.as_deref(), Some("endTurn"));

    // ElicitResult: accept with and without content.
    let accepted: ElicitResult = parse("ElicitResult", "input-single-field.json");
    assert_eq!(accepted.action, ElicitAction::Accept);
    assert_eq!(accepted.content.as_ref().and_then(|c| c.get("name")), Some(&json!("octocat")));
    let url_accept: ElicitResult = parse("ElicitResult", "accept-url-mode-no-content.json");
    assert_eq!(url_accept, ElicitResult { action: ElicitAction::Accept, content: None, meta: None });
    let fields: ElicitResult = parse("ElicitResult", "input-multiple-fields.json");
    assert_eq!(fields.content.as_ref().and_then(|c| c.get("age")), Some(&json!(30)));

    // ResultType: known values map to variants, unknown ones are kept verbatim.
    let task: ResultType = serde_json::from_value(json!("task")).expect("any string is a result type");
    assert_eq!(task, ResultType::Other("task".to_owned()));
    assert_eq!(serde_json::to_value(&task).expect("serializes"), json!("task"));
    let complete: ResultType = serde_json::from_value(json!("complete")).expect("complete");
    assert_eq!(complete, ResultType::Complete);
    let mut task_result = example("CallToolResult", "result-with-unstructured-text.json");
    task_result["resultType"] = json!("task");
    let parsed: CallToolResult = serde_json::from_value(task_result.clone()).expect("a task result deserializes");
    assert_eq!(parsed.result_type, ResultType::Other("task".to_owned()));
    assert_eq!(serde_json::to_value(&parsed).expect("serializes"), task_result);

    // Requests: typed `_meta` and params, and the method each folder is about.
    let request: JsonRpcRequest<CallToolParams> = parse("CallToolRequest", "call-tool-request.json");
    assert_eq!(request.id, RequestId::from("call-tool-example"));
    assert_eq!(request.method, methods::TOOLS_CALL);
    let params = request.params.expect("tools/call has params");
    assert_eq!(params.name, "get_weather");
    assert_eq!(params.arguments.as_ref().and_then(|a| a.get("location")), Some(&json!("New York")));
    let meta = params.meta.expect("the request has _meta");
    assert_eq!(meta.protocol_version.as_deref(), Some(VERSION));
    assert_eq!(meta.client_info.as_ref().map(|i| i.name.as_str()), Some("ExampleClient"));
    assert_eq!(meta.client_capabilities, Some(ClientCapabilities::default()));
    assert!(meta.other.is_empty(), "reserved keys must be typed, not left in `other`: {:?}", meta.other);
    // Typed params stay optional: a request without them still decodes, and stays without.
    let bare = json!({"jsonrpc": "2.0", "id": 7, "method": methods::TOOLS_LIST});
    let bare_request: JsonRpcRequest<PaginatedParams> = serde_json::from_value(bare.clone()).expect("no params");
    assert_eq!(bare_request.params, None);
    assert_eq!(serde_json::to_value(&bare_request).expect("serializes"), bare);
    let with_token: CallToolParams = parse("CallToolRequestParams", "tool-call-params-with-progress-token.json");
    assert_eq!(with_token.meta.and_then(|m| m.progress_token), Some(RequestId::from("oivaizmir")));

    // Catch-all maps must not swallow keys the model types: every reserved `_meta` key of
    // every request example, and every capability example, lands in a typed field.
    for folder in example_folders().iter().filter(|f| f.ends_with("Request") || f.ends_with("RequestParams")) {
        for path in example_files(folder) {
            let value = common::read_json(&path);
            let meta = if folder.ends_with("Params") { &value["_meta"] } else { &value["params"]["_meta"] };
            if meta.is_null() {
                continue;
            }
            let meta: RequestMeta = serde_json::from_value(meta.clone()).expect("request _meta");
            assert!(meta.other.is_empty(), "{folder}/{}: untyped _meta keys {:?}", file_name(&path), meta.other);
        }
    }
    for path in example_files("ClientCapabilities") {
        let caps: ClientCapabilities = serde_json::from_value(common::read_json(&path)).expect("client capabilities");
        assert!(caps.other.is_empty(), "ClientCapabilities/{}: untyped keys {:?}", file_name(&path), caps.other);
    }

    let expected_methods = [
        ("CallToolRequest", methods::TOOLS_CALL),
        ("CompleteRequest", methods::COMPLETION_COMPLETE),
        ("DiscoverRequest", methods::SERVER_DISCOVER),
        ("GetPromptRequest", methods::PROMPTS_GET),
        ("ListPromptsRequest", methods::PROMPTS_LIST),
        ("ListResourceTemplatesRequest", methods::RESOURCES_TEMPLATES_LIST),
        ("ListResourcesRequest", methods::RESOURCES_LIST),
        ("ListToolsRequest", methods::TOOLS_LIST),
        ("ReadResourceRequest", methods::RESOURCES_READ),
        ("SubscriptionsListenRequest", methods::SUBSCRIPTIONS_LISTEN),
        ("CreateMessageRequest", methods::SAMPLING_CREATE_MESSAGE),
        ("ElicitRequest", methods::ELICITATION_CREATE),
        ("CancelledNotification", methods::NOTIFICATION_CANCELLED),
        ("LoggingMessageNotification", methods::NOTIFICATION_MESSAGE),
        ("ProgressNotification", methods::NOTIFICATION_PROGRESS),
        ("PromptListChangedNotification", methods::NOTIFICATION_PROMPTS_LIST_CHANGED),
        ("ResourceListChangedNotification", methods::NOTIFICATION_RESOURCES_LIST_CHANGED),
        ("ResourceUpdatedNotification", methods::NOTIFICATION_RESOURCES_UPDATED),
        ("SubscriptionsAcknowledgedNotification", methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED),
        ("ToolListChangedNotification", methods::NOTIFICATION_TOOLS_LIST_CHANGED),
    ];
    for (folder, method) in expected_methods {
        for path in example_files(folder) {
            let value = common::read_json(&path);
            assert_eq!(value["method"], json!(method), "{folder}/{}", file_name(&path));
        }
    }

    // Numbers held as f64 go back out as the integers they were.
    let progress: JsonRpcNotification<ProgressParams> = parse("ProgressNotification", "progress-message.json");
    let progress_params = progress.params.as_ref().expect("progress has params");
    assert_eq!((progress_params.progress, progress_params.total), (50.0, Some(100.0)));
    let written = serde_json::to_value(&progress).expect("serializes");
    assert!(written["params"]["progress"].is_u64(), "50 must stay an integer: {}", written["params"]["progress"]);
    let number: NumberSchema = parse("NumberSchema", "number-input-schema.json");
    assert_eq!((number.minimum, number.maximum, number.default), (Some(0.0), Some(100.0), Some(50.0)));

    // Errors: the codes are ours.
    let header: JsonRpcErrorResponse = parse("HeaderMismatchError", "header-mismatch.json");
    assert_eq!(header.id, Some(RequestId::from(1)));
    assert_eq!(header.error.code, ErrorCode::HEADER_MISMATCH);
    let missing: JsonRpcErrorResponse =
        parse("MissingRequiredClientCapabilityError", "missing-elicitation-capability.json");
    assert_eq!(missing.error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    let unsupported: JsonRpcErrorResponse = parse("UnsupportedProtocolVersionError", "unsupported-version.json");
    assert_eq!(unsupported.error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
    let bare_errors = [
        ("InternalError", ErrorCode::INTERNAL_ERROR),
        ("InvalidParamsError", ErrorCode::INVALID_PARAMS),
        ("MethodNotFoundError", ErrorCode::METHOD_NOT_FOUND),
        ("ParseError", ErrorCode::PARSE_ERROR),
    ];
    for (folder, code) in bare_errors {
        for path in example_files(folder) {
            let error: Error = serde_json::from_value(common::read_json(&path)).expect("an error object");
            assert_eq!(error.code, code, "{folder}/{}", file_name(&path));
        }
    }
}

/// Validates the examples themselves (a sanity check of the harness and the table's
/// premise that folder `X` holds instances of `#/$defs/X`).
///
/// No file is excluded here, not even [`EXCLUDED`]: `#/$defs/ListRootsRequest` does not
/// close its properties, so the stray `"id"` in its example is schema-valid; it is only
/// our model that cannot carry it back.
#[test]
fn spec_examples_are_valid_against_the_schema() {
    let schema = common::schema(VERSION);
    let mut failures = Vec::new();
    let mut files_checked = 0;
    for folder in example_folders() {
        if schema.pointer(&format!("/$defs/{folder}")).is_none() {
            failures.push(format!("{folder}: no such definition in the schema"));
            continue;
        }
        for path in example_files(&folder) {
            let file = file_name(&path);
            files_checked += 1;
            let errors = common::schema_errors(VERSION, &folder, &common::read_json(&path));
            if !errors.is_empty() {
                failures.push(format!("{folder}/{file} against #/$defs/{folder}:\n      {}", errors.join("\n      ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) invalid against the schema:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
    assert!(
        files_checked >= MIN_FILES,
        "only {files_checked} example files were validated, expected at least {MIN_FILES}"
    );
}
