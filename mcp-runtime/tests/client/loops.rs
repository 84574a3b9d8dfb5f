//! The auto loop.
//! The manual loop.
//! Missing callbacks.

use super::*;

#[tokio::test]
async fn each_retry_is_a_new_request_with_the_same_name_and_arguments() {
    for via in BOTH_WAYS {
        let (server, probe, _hang) = probe_server();
        let asked = Asked::default();
        let client = connect(via, Client::builder().elicitation(asked.elicitation("yes")), &server).await;
        let arguments = json!({"greeting": "hi", "nested": {"list": [1, 2.5, "three"]}});
        let result = within("twice", client.call_tool("twice", arguments.clone())).await;
        let result = result.unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(text_of(&result), "first=yes second=yes", "{via:?}");
        assert_eq!(result.is_error, None);

        let calls = probe.calls();
        assert_eq!(calls.len(), 3, "{via:?}: the first request and two retries");
        let ids: Vec<&RequestId> = calls.iter().map(|(id, _)| id).collect();
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2], "{via:?}: ids must differ: {ids:?}");
        for params in params_of(&calls) {
            assert_eq!(params["name"], "twice", "{via:?}");
            assert_eq!(params["arguments"], arguments, "{via:?}");
            let meta = &params["_meta"];
            assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{via:?}: {meta}");
            assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], json!({"elicitation": {"form": {}}}));
            assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string(), "{via:?}: {meta}");
        }
        let rounds: Vec<(Option<Vec<&String>>, Option<&str>)> = params_of(&calls)
            .iter()
            .map(|p| {
                let keys = p.get("inputResponses").and_then(Value::as_object).map(|r| r.keys().collect());
                (keys, p.get("requestState").and_then(Value::as_str))
            })
            .collect();
        let first = "first".to_owned();
        let second = "second".to_owned();
        assert_eq!(
            rounds,
            vec![(None, None), (Some(vec![&first]), Some("twice-1")), (Some(vec![&second]), Some("twice-2:yes"))],
            "{via:?}: each retry carries that round's answers and state, the first neither"
        );
        let keys: Vec<Asker> = asked.all().into_iter().map(|(a, _)| a).collect();
        assert_eq!(keys, vec![Asker::InputRequest("first".into()), Asker::InputRequest("second".into())]);
    }
}

#[tokio::test]
async fn the_auto_loop_completes_an_elicitation_tool_in_both_eras() {
    let (probe_server, _probe, _hang) = probe_server();
    let resolvers = macro_server();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let legacy = mode == Mode::Legacy;
            let asked = Asked::default();
            let builder = || Client::builder().mode(mode.clone()).elicitation(asked.elicitation("eu-west-1"));

            let client = connect(via, builder(), &probe_server).await;
            let result = within("ask", client.call_tool("ask", json!({}))).await;
            let result = result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            let expected = if legacy { "Hello, eu-west-1!" } else { "Hello, eu-west-1! (state ask-state)" };
            assert_eq!(text_of(&result), expected, "{via:?} {mode:?}");

            let client = connect(via, builder(), &resolvers).await;
            let result = within("provision", client.call_tool("provision", json!({"name": "orders"}))).await;
            let result = result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(text_of(&result), "Provisioned 'orders' in eu-west-1.", "{via:?} {mode:?}");

            let asked = asked.all();
            assert_eq!(asked.len(), 2, "{via:?} {mode:?}: one question per call: {asked:?}");
            assert!(asked_the_eras_way(&asked[0].0, legacy, "name"), "{via:?} {mode:?}: {asked:?}");
            assert!(matches!(&asked[1].0, Asker::InputRequest(_)) != legacy, "{via:?} {mode:?}: {asked:?}");
            assert_eq!(asked[1].1, "Which region should the database live in?");
        }
    }
}

#[tokio::test]
async fn sampling_and_roots_callbacks_answer_in_both_eras() {
    let (probe_server, _probe, _hang) = probe_server();
    let resolvers = macro_server();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let legacy = mode == Mode::Legacy;
            let asked = Asked::default();
            let builder = || {
                Client::builder()
                    .mode(mode.clone())
                    .sampling(asked.sampling("teal"))
                    .roots(asked.roots(&["file:///a", "file:///b"]))
            };
            let client = connect(via, builder(), &probe_server).await;
            let sampled = within("sample", client.call_tool("sample", json!({}))).await;
            assert_eq!(text_of(&sampled.unwrap_or_else(|e| panic!("{e}"))), "model test-model said 1 block(s)");
            let roots = within("roots", client.call_tool("roots", json!({}))).await;
            assert_eq!(text_of(&roots.unwrap_or_else(|e| panic!("{e}"))), "roots: file:///a, file:///b");

            let client = connect(via, builder(), &resolvers).await;
            let suggested = within("suggest", client.call_tool("suggest", json!({"topic": "birds"}))).await;
            assert_eq!(text_of(&suggested.unwrap_or_else(|e| panic!("{e}"))), "Suggested by test-model");
            let counted = within("count_roots", client.call_tool("count_roots", json!({}))).await;
            assert_eq!(text_of(&counted.unwrap_or_else(|e| panic!("{e}"))), "2 root(s)");

            let asked = asked.all();
            let methods: Vec<&str> = asked.iter().map(|(_, m)| m.as_str()).collect();
            assert_eq!(methods, ["sampling/createMessage", "roots/list", "sampling/createMessage", "roots/list"]);
            assert!(asked_the_eras_way(&asked[0].0, legacy, "model"), "{via:?} {mode:?}: {asked:?}");
            assert!(asked_the_eras_way(&asked[1].0, legacy, "roots"), "{via:?} {mode:?}: {asked:?}");
        }
    }
}

#[tokio::test]
async fn prompts_and_resources_run_the_loop_too() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let asked = Asked::default();
            let builder = Client::builder().mode(mode.clone()).elicitation(asked.elicitation("the team"));
            let client = connect(via, builder, &server).await;
            let prompt = within("prompt", client.get_prompt("briefing", BTreeMap::new())).await;
            let prompt = prompt.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(prompt.messages[0].content.as_text(), Some("Write a briefing for the team."));
            let read = within("read", client.read_resource("db://orders/config")).await;
            let read = read.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(
                read.contents,
                vec![ResourceContents::text("db://orders/config", "secret of db://orders/config (ok=the team)")]
            );
            assert_eq!(asked.all().len(), 2, "{via:?} {mode:?}");
        }
    }
    let asked = Asked::default();
    let client = connect(Via::InProcess, Client::builder().elicitation(asked.elicitation("-")), &server).await;
    let once = within("prompt once", client.get_prompt_once("briefing", BTreeMap::new(), CallOptions::default())).await;
    let Ok(Outcome::InputRequired(question)) = once else { panic!("expected a question, got {once:?}") };
    assert!(question.input_requests.as_ref().is_some_and(|r| r.contains_key("audience")));
    let once = within("read once", client.read_resource_once("db://x/config", CallOptions::default())).await;
    assert!(matches!(once, Ok(Outcome::InputRequired(_))), "{once:?}");
    assert!(asked.all().is_empty(), "the manual forms never call the callbacks");
}

#[tokio::test]
async fn state_only_rounds_are_retried_until_the_server_finishes() {
    for via in BOTH_WAYS {
        let (server, probe, _hang) = probe_server();
        let client = connect(via, Client::builder(), &server).await;
        let result = within("poll", client.call_tool("poll", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text_of(&result), "polled");
        let calls = probe.calls();
        let states: Vec<Option<&str>> = params_of(&calls).iter().map(|p| p["requestState"].as_str()).collect();
        assert_eq!(states, [None, Some("poll-1"), Some("poll-2")], "{via:?}");
        assert!(params_of(&calls).iter().all(|p| p.get("inputResponses").is_none()), "{via:?}");
    }
}

#[tokio::test]
async fn the_round_cap_stops_a_server_that_keeps_asking() {
    for via in BOTH_WAYS {
        let (server, probe, _hang) = probe_server();
        let asked = Asked::default();
        let builder = Client::builder().input_required_max_rounds(2).elicitation(asked.elicitation("again"));
        let client = connect(via, builder, &server).await;
        let result = within("loop", client.call_tool("loop", json!({}))).await;
        assert_eq!(result, Err(ClientError::RoundsExceeded { max_rounds: 2 }), "{via:?}");
        assert_eq!(probe.calls().len(), 3, "{via:?}: the first request and two retries");
        assert_eq!(asked.all().len(), 2, "{via:?}: two rounds answered");
    }
}

#[tokio::test]
async fn a_failing_callback_abandons_the_call() {
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let (server, probe, _hang) = probe_server();
            let refusal = Error { code: -32001, message: "the user walked away".into(), data: None };
            let error = refusal.clone();
            let builder = Client::builder().mode(mode.clone()).elicitation(move |_asker, _params| {
                let error = error.clone();
                async move { Err::<ElicitResult, _>(error) }
            });
            let client = connect(via, builder, &server).await;
            let result = within("ask", client.call_tool("ask", json!({}))).await;
            if mode == Mode::Legacy {
                // The refusal goes back to the server as the answer to its request; the
                // handler's `?` turns it into the call's error.
                let error = result.expect_err("the handler cannot go on");
                assert_eq!(error.code(), Some(-32001), "{via:?}: {error:?}");
            } else {
                assert_eq!(result, Err(ClientError::Callback { key: "name".into(), error: refusal }), "{via:?}");
                assert_eq!(probe.calls().len(), 1, "{via:?}: no retry after a failed callback");
            }
        }
    }
}

fn accept(field: &str, value: &str) -> InputResponse {
    InputResponse::Elicit(ElicitResult::accept(object(json!({field: value}))))
}

#[tokio::test]
async fn the_manual_loop_returns_the_questions_and_resumes_anywhere() {
    let (server, probe, _hang) = probe_server();
    let asked = Asked::default();
    // A callback is present but must not be used by the manual loop.
    let first = connect(Via::InProcess, Client::builder().elicitation(asked.elicitation("auto")), &server).await;
    let once = within("once", first.call_tool_once("ask", json!({"greeting": "hi"}), CallOptions::default())).await;
    let Ok(Outcome::InputRequired(question)) = once else { panic!("expected a question, got {once:?}") };
    let requests = question.input_requests.clone().unwrap_or_default();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"]);
    let Some(InputRequest::Elicit(params)) = requests.get("name") else { panic!("an elicitation: {requests:?}") };
    assert_eq!(params.message(), "What is your name?");
    let state = question.request_state.clone().unwrap_or_else(|| panic!("the server sent a requestState"));
    assert!(asked.all().is_empty(), "the manual loop never calls the callbacks");

    let answers: InputResponses = [("name".to_owned(), accept("name", "Ada"))].into();
    let resume = || CallOptions {
        input_responses: Some(answers.clone()),
        request_state: Some(state.clone()),
        ..CallOptions::default()
    };
    let done = within("resume", first.call_tool_once("ask", json!({"greeting": "hi"}), resume())).await;
    let Ok(Outcome::Complete(result)) = done else { panic!("expected the result, got {done:?}") };
    assert_eq!(text_of(&result), "Hello, Ada! (state ask-state)");

    // Another client ("another process"), in process and over HTTP, resumes the same flow.
    for via in BOTH_WAYS {
        let other = connect(via, Client::builder(), &server).await;
        let done = within("resume elsewhere", other.call_tool_once("ask", json!({"greeting": "hi"}), resume())).await;
        let Ok(Outcome::Complete(result)) = done else { panic!("{via:?}: expected the result, got {done:?}") };
        assert_eq!(text_of(&result), "Hello, Ada! (state ask-state)", "{via:?}");
        // The auto form takes the same seed and finishes without asking.
        let done = within("seeded call", other.call_tool_with("ask", json!({"greeting": "hi"}), resume())).await;
        assert_eq!(text_of(&done.unwrap_or_else(|e| panic!("{e}"))), "Hello, Ada! (state ask-state)");
    }
    let calls = probe.calls();
    assert_eq!(calls.len(), 6);
    assert!(
        calls[1..].iter().all(|(_, p)| p["requestState"] == "ask-state" && p["inputResponses"]["name"].is_object())
    );
    assert!(asked.all().is_empty());
}

#[tokio::test]
async fn a_sealed_resolver_flow_resumes_from_another_client() {
    let server = macro_server();
    let first = connect(Via::InProcess, Client::builder(), &server).await;
    let once = within("once", first.call_tool_once("provision", json!({"name": "orders"}), CallOptions::default()));
    // Without the capability the resolver refuses; with it, it asks.
    let refused = once.await.expect_err("no elicitation capability declared");
    assert_eq!(refused.code(), Some(-32021));

    let asked = Asked::default();
    let first = connect(Via::InProcess, Client::builder().elicitation(asked.elicitation("unused")), &server).await;
    let once = within("once", first.call_tool_once("provision", json!({"name": "orders"}), CallOptions::default()));
    let Ok(Outcome::InputRequired(question)) = once.await else { panic!("expected a question") };
    let requests = question.input_requests.unwrap_or_default();
    let (key, request) = requests.iter().next().unwrap_or_else(|| panic!("one question"));
    assert_eq!(request.method(), "elicitation/create");
    let state = question.request_state.unwrap_or_else(|| panic!("sealed state"));

    let answers: InputResponses = [(key.clone(), accept("region", "ap-south-1"))].into();
    let builder = Client::builder().elicitation(asked.elicitation("unused"));
    let second = connect(Via::Http, builder, &server).await;
    let options = CallOptions { input_responses: Some(answers), request_state: Some(state), ..CallOptions::default() };
    let done = within("resume", second.call_tool_once("provision", json!({"name": "orders"}), options)).await;
    let Ok(Outcome::Complete(result)) = done else { panic!("expected the result, got {done:?}") };
    assert_eq!(text_of(&result), "Provisioned 'orders' in ap-south-1.");
    assert!(asked.all().is_empty());
}

#[tokio::test]
async fn a_resolver_tool_is_refused_by_the_server_when_the_callback_is_missing() {
    let server = macro_server();
    for via in BOTH_WAYS {
        let client = connect(via, Client::builder(), &server).await;
        let cases = [
            ("provision", json!({"name": "orders"}), json!({"elicitation": {"form": {}}})),
            ("suggest", json!({"topic": "birds"}), json!({"sampling": {}})),
            ("count_roots", json!({}), json!({"roots": {}})),
        ];
        for (tool, arguments, required) in cases {
            let result = within(tool, client.call_tool(tool, arguments)).await;
            match result {
                Err(ClientError::Rpc(e)) => {
                    assert_eq!(e.code, -32021, "{via:?} {tool}: {e:?}");
                    assert_eq!(e.data, Some(json!({"requiredCapabilities": required})), "{via:?} {tool}");
                }
                other => panic!("{via:?} {tool}: expected -32021, got {other:?}"),
            }
        }
    }
}
