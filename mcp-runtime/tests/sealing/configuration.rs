//! Key rotation phases, and the errors a wrong configuration gets.

use super::*;

#[tokio::test]
async fn key_rotation_phases() {
    let clock = TestClock::new();
    let old = server("svc", keys_policy(&[K], &clock));
    let learning = server("svc", keys_policy(&[K, K2], &clock));
    let promoted = server("svc", keys_policy(&[K2, K], &clock));
    let retired = server("svc", keys_policy(&[K2], &clock));

    let from_old = old.mint("deploy", json!({}), None).await;
    assert_eq!(learning.expect_completes("deploy", json!({}), &from_old, None).await, "plain-state-deploy-r1");
    assert_eq!(promoted.expect_completes("deploy", json!({}), &from_old, None).await, "plain-state-deploy-r1");
    retired.expect_call_rejected("deploy", json!({}), json!(from_old), None).await;

    // The first key of the ring mints: `[K2, K]` mints under K2.
    let from_promoted = promoted.mint("deploy", json!({}), None).await;
    assert_eq!(retired.expect_completes("deploy", json!({}), &from_promoted, None).await, "plain-state-deploy-r1");
    assert_eq!(learning.expect_completes("deploy", json!({}), &from_promoted, None).await, "plain-state-deploy-r1");
    old.expect_call_rejected("deploy", json!({}), json!(from_promoted), None).await;
}

fn config_error(builder: RequestStateSecurityBuilder) -> String {
    builder.build().expect_err("the configuration is refused").to_string()
}

#[test]
fn configuration_errors_are_clear() {
    let short = config_error(RequestStateSecurity::builder().keys([[0u8; 31]]));
    assert!(short.contains("key 0 is 31 bytes") && short.contains("at least 32"), "{short}");
    let second_short = config_error(RequestStateSecurity::builder().keys([&[1u8; 32][..], &[2u8; 16][..]]));
    assert!(second_short.contains("key 1 is 16 bytes"), "{second_short}");
    let empty = config_error(RequestStateSecurity::builder().keys(Vec::<Vec<u8>>::new()));
    assert!(empty.contains("key ring is empty"), "{empty}");
    let duplicate = config_error(RequestStateSecurity::builder().keys([K, K2, K]));
    assert!(duplicate.contains("key 2 repeats an earlier key"), "{duplicate}");
    let zero = config_error(RequestStateSecurity::builder().keys([K]).ttl(Duration::ZERO));
    assert!(zero.contains("ttl must be positive"), "{zero}");
    let sub_ms = config_error(RequestStateSecurity::builder().keys([K]).ttl(Duration::from_micros(999)));
    assert!(sub_ms.contains("ttl"), "{sub_ms}");
    let both = config_error(RequestStateSecurity::builder().keys([K]).codec(AesGcmCodec::new(&[K2]).expect("codec")));
    assert!(both.contains("either keys or a codec, not both"), "{both}");
    let neither = config_error(RequestStateSecurity::builder());
    assert!(neither.contains("give keys") && neither.contains("or a codec"), "{neither}");
    for message in [&short, &empty, &duplicate, &zero, &both, &neither] {
        assert!(message.starts_with("invalid request-state security: "), "{message}");
    }
    // Text keys are their UTF-8 bytes; 32 bytes is enough.
    let text = RequestStateSecurity::builder().keys(["0123456789abcdef0123456789abcdef"]).build();
    assert!(text.is_ok());
}

#[test]
fn an_explicit_policy_on_an_unnamed_server_needs_an_audience() {
    let clock = TestClock::new();
    for name in ["", "   "] {
        let error = try_server(name, keys_policy(&[K], &clock)).err().expect("refused");
        let message = error.to_string();
        assert!(message.contains("no name") && message.contains("set an audience"), "{message}");
        let with_audience = try_server(name, policy(&[K], &clock).audience("svc-prod").build().expect("policy"));
        assert!(with_audience.is_ok());
    }
    // The no-configuration default (a key that never leaves the process) is exempt.
    let default = Server::builder("", "1.0.0")
        .on_call_tool(|_ctx, _params| async { Ok(CallToolOutcome::from(CallToolResult::text("x"))) })
        .try_build();
    assert!(default.is_ok());
    let ephemeral = try_server("", RequestStateSecurity::ephemeral().expect("ephemeral"));
    assert!(ephemeral.is_ok());
}
