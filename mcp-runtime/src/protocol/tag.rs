//! Single-value string tags (`"type": "string"` and the like) that serialize as
//! themselves and reject anything else, so untagged enums pick the right variant.

macro_rules! string_tag {
    ($(#[$doc:meta])* $name:ident = $value:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The wire value.
            pub const VALUE: &'static str = $value;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = ::std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
                if s == $value {
                    Ok($name)
                } else {
                    Err(::serde::de::Error::custom(concat!("expected \"", $value, "\"")))
                }
            }
        }
    };
}

pub(crate) use string_tag;
