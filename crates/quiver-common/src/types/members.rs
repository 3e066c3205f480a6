//! ENUM and SET columns: their members as the declared type text holds them
//! (`enum('a','b')`, `set('x','y')`, under `COLUMN_TYPE_KEY`), and the codes
//! they are stored as. An ENUM value is its member's 1-based index (0 is
//! MariaDB's error value ''), in the smallest unsigned integer that holds
//! the count; a SET value is a bitmask, bit k for member k + 1.

use arrow_schema::DataType;

/// Which of the two member types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    Enum,
    Set,
}

/// An ENUM or SET type: its kind and its members in declared order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberType {
    pub kind: MemberKind,
    pub members: Vec<String>,
}

/// MariaDB's most members of an ENUM and of a SET.
pub const MAX_ENUM_MEMBERS: usize = 65_535;
pub const MAX_SET_MEMBERS: usize = 64;

impl MemberType {
    /// The type of declared type text `text`, None when it is no ENUM / SET.
    pub fn parse(text: &str) -> Option<MemberType> {
        let (kind, rest) = if let Some(r) = text.strip_prefix("enum(") {
            (MemberKind::Enum, r)
        } else if let Some(r) = text.strip_prefix("set(") {
            (MemberKind::Set, r)
        } else {
            return None;
        };
        let mut members = Vec::new();
        let mut chars = rest.chars().peekable();
        loop {
            if chars.next()? != '\'' {
                return None;
            }
            let mut m = String::new();
            loop {
                match chars.next()? {
                    '\'' if chars.peek() == Some(&'\'') => {
                        chars.next();
                        m.push('\'');
                    }
                    '\'' => break,
                    '\\' => m.push(chars.next()?),
                    c => m.push(c),
                }
            }
            members.push(m);
            match chars.next()? {
                ',' => continue,
                ')' => break,
                _ => return None,
            }
        }
        chars
            .next()
            .is_none()
            .then_some(MemberType { kind, members })
    }

    /// The declared type text, as SHOW COLUMNS prints it.
    pub fn text(&self) -> String {
        let mut out = String::from(match self.kind {
            MemberKind::Enum => "enum(",
            MemberKind::Set => "set(",
        });
        for (i, m) in self.members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('\'');
            for c in m.chars() {
                match c {
                    '\'' => out.push_str("''"),
                    '\\' => out.push_str("\\\\"),
                    c => out.push(c),
                }
            }
            out.push('\'');
        }
        out.push(')');
        out
    }

    /// The Arrow type the codes are stored in.
    pub fn code_type(&self) -> DataType {
        code_type(self.kind, self.members.len())
    }

    /// The longest member in characters (a SET: all members and commas),
    /// what clients are told as the column's length.
    pub fn max_chars(&self) -> usize {
        let lengths = self.members.iter().map(|m| m.chars().count());
        match self.kind {
            MemberKind::Enum => lengths.max().unwrap_or(0),
            MemberKind::Set => lengths.sum::<usize>() + self.members.len().saturating_sub(1),
        }
    }
}

/// The Arrow type of the codes of `count` members of `kind`.
pub fn code_type(kind: MemberKind, count: usize) -> DataType {
    match (kind, count) {
        (MemberKind::Enum, 0..=255) => DataType::UInt8,
        (MemberKind::Enum, _) => DataType::UInt16,
        (MemberKind::Set, 0..=8) => DataType::UInt8,
        (MemberKind::Set, 9..=16) => DataType::UInt16,
        (MemberKind::Set, 17..=32) => DataType::UInt32,
        (MemberKind::Set, _) => DataType::UInt64,
    }
}

/// The ENUM / SET type of a field, from its declared type text.
pub fn member_type(f: &arrow_schema::Field) -> Option<MemberType> {
    MemberType::parse(f.metadata().get(super::COLUMN_TYPE_KEY)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let t = MemberType {
            kind: MemberKind::Enum,
            members: vec!["a".into(), "it's".into(), "b\\c".into(), "".into()],
        };
        assert_eq!(t.text(), "enum('a','it''s','b\\\\c','')");
        assert_eq!(MemberType::parse(&t.text()), Some(t));
        let s = MemberType::parse("set('x','y,')").unwrap();
        assert_eq!(s.kind, MemberKind::Set);
        assert_eq!(s.members, ["x", "y,"]);
        assert_eq!(MemberType::parse("varchar(3)"), None);
        assert_eq!(MemberType::parse("enum('a'"), None);
        assert_eq!(MemberType::parse("enum('a')x"), None);
    }
}
