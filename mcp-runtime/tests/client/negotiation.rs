//! Negotiation and capabilities.

use super::*;

#[tokio::test]
async fn auto_mode_negotiates_2026_07_28() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        let client = connect(via, Client::builder(), &server).await;
        assert_eq!(client.protocol_version(), "2026-07-28", "{via:?}");
        assert!(!client.is_legacy(), "{via:?}");
        let info = client.server_info().unwrap_or_else(|| panic!("{via:?}: server/discover names the server"));
        assert_eq!((info.name.as_str(), info.version.as_str()), ("probe", "1.2.3"));
        assert!(client.server_capabilities().tools.is_some(), "{via:?}");
        let result = within("caps", client.call_tool("caps", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let echoed = result.structured_content.unwrap_or_default();
        assert_eq!((echoed["legacy"].clone(), echoed["version"].clone()), (json!(false), json!("2026-07-28")));
    }
}

#[tokio::test]
async fn legacy_mode_negotiates_2025_11_25() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        let client = connect(via, Client::builder().mode(Mode::Legacy), &server).await;
        assert_eq!(client.protocol_version(), "2025-11-25", "{via:?}");
        assert!(client.is_legacy(), "{via:?}");
        assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("probe"), "{via:?}");
        let result = within("caps", client.call_tool("caps", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let echoed = result.structured_content.unwrap_or_default();
        assert_eq!((echoed["legacy"].clone(), echoed["version"].clone()), (json!(true), json!("2025-11-25")));
    }
}

#[tokio::test]
async fn an_explicit_modern_mode_skips_the_probe_and_rejects_other_versions() {
    let (server, _probe, _hang) = probe_server();
    let client = connect(Via::InProcess, Client::builder().mode(Mode::Modern("2026-07-28".into())), &server).await;
    assert_eq!(client.protocol_version(), "2026-07-28");
    within("ping", client.ping()).await.unwrap_or_else(|e| panic!("{e}"));
    for version in ["2025-11-25", "2027-01-01", ""] {
        let refused = Client::builder().mode(Mode::Modern(version.into())).connect_in_process(&server).await;
        assert!(matches!(refused, Err(ClientError::Unsupported(_))), "{version:?}: {refused:?}");
    }
}

async fn echoed_capabilities(via: Via, mode: Mode, builder: ClientBuilder, server: &Server) -> Value {
    let client = connect(via, builder.mode(mode.clone()), server).await;
    let result = within("caps", client.call_tool("caps", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    let echoed = result.structured_content.unwrap_or_default();
    assert_eq!(echoed["legacy"], json!(mode == Mode::Legacy), "{via:?} {mode:?}");
    echoed["capabilities"].clone()
}

#[tokio::test]
async fn capabilities_are_declared_from_the_callbacks_present() {
    let (server, _probe, _hang) = probe_server();
    let asked = Asked::default();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let none = echoed_capabilities(via, mode.clone(), Client::builder(), &server).await;
            assert_eq!(none, json!({}), "{via:?} {mode:?}: no callbacks, no capabilities");

            let logging_only = Client::builder().on_progress(|_| {}).on_log(LoggingLevel::Info, |_| {});
            let logging_only = echoed_capabilities(via, mode.clone(), logging_only, &server).await;
            assert_eq!(logging_only, json!({}), "{via:?} {mode:?}: notification callbacks declare nothing");

            let elicit = Client::builder().elicitation(asked.elicitation("x"));
            let elicit = echoed_capabilities(via, mode.clone(), elicit, &server).await;
            assert_eq!(elicit, json!({"elicitation": {"form": {}}}), "{via:?} {mode:?}");

            let all = Client::builder()
                .elicitation(asked.elicitation("x"))
                .sampling(asked.sampling("x"))
                .roots(asked.roots(&[]));
            let all = echoed_capabilities(via, mode.clone(), all, &server).await;
            assert_eq!(all["elicitation"], json!({"form": {}}), "{via:?} {mode:?}");
            assert_eq!(all["sampling"], json!({}), "{via:?} {mode:?}: no tools unless asked");
            assert!(all["roots"].is_object(), "{via:?} {mode:?}: {all}");

            let tools = Client::builder().sampling(asked.sampling("x")).sampling_tools(true);
            let tools = echoed_capabilities(via, mode.clone(), tools, &server).await;
            assert_eq!(tools, json!({"sampling": {"tools": {}}}), "{via:?} {mode:?}");
        }
    }
    assert!(asked.all().is_empty(), "declaring capabilities asks nothing");
}
