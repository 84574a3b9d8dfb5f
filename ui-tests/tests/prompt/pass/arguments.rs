// Prompt arguments: any `FromStr` type, optional through `Option`, documented, renamed;
// and every key `#[mcp::prompt]` accepts.
use std::net::IpAddr;
use std::str::FromStr;

use mcp::items::PromptDef;

/// A tone of voice.
enum Tone {
    Formal,
    Casual,
}

impl FromStr for Tone {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "formal" => Ok(Tone::Formal),
            "casual" => Ok(Tone::Casual),
            other => Err(format!("unknown tone `{other}`")),
        }
    }
}

/// Write a letter.
#[mcp::prompt(
    name = "letter",
    title = "Letter writer",
    description = "Write a letter to someone.",
    icons = ["https://example.com/letter.png"],
    meta = r#"{"category": "writing"}"#,
)]
fn write_letter(
    /// Who the letter is for.
    to: String,
    /// How to sound.
    tone: Tone,
    #[mcp(rename = "wordCount", description = "Roughly how long.")] word_count: Option<u32>,
    /// Where to send it.
    server: Option<IpAddr>,
    urgent: bool,
) -> String {
    let tone = match tone {
        Tone::Formal => "formal",
        Tone::Casual => "casual",
    };
    format!("{to} {tone} {word_count:?} {server:?} {urgent}")
}

fn main() {
    let def = <write_letter as PromptDef>::definition();
    assert_eq!(<write_letter as PromptDef>::NAME, "letter");
    assert_eq!(def.title.as_deref(), Some("Letter writer"));
    assert_eq!(def.description.as_deref(), Some("Write a letter to someone."));
    assert_eq!(def.icons.map(|i| i.len()), Some(1));
    assert_eq!(def.meta.expect("meta")["category"], "writing");
    let args = def.arguments.expect("arguments");
    let names: Vec<_> = args.iter().map(|a| (a.name.as_str(), a.required)).collect();
    assert_eq!(
        names,
        [
            ("to", Some(true)),
            ("tone", Some(true)),
            ("wordCount", Some(false)),
            ("server", Some(false)),
            ("urgent", Some(true))
        ]
    );
    assert_eq!(args[0].description.as_deref(), Some("Who the letter is for."));
    assert_eq!(args[2].description.as_deref(), Some("Roughly how long."));
}
