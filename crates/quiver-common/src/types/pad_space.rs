//! PAD SPACE comparison of byte strings: trailing spaces do not count.

use std::cmp::Ordering;

/// PAD SPACE comparison of byte strings (utf8mb4_bin): the shorter one is
/// compared as if padded with spaces, so 'a' = 'a  ' and 'a\t' < 'a'.
pub fn compare_pad_space(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => {}
        other => return other,
    }
    let (rest, flip) = if a.len() > n {
        (&a[n..], false)
    } else {
        (&b[n..], true)
    };
    for &c in rest {
        if c != b' ' {
            let o = c.cmp(&b' ');
            return if flip { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}

/// Bytes of `s` without trailing spaces: the key under which PAD SPACE strings are equal.
pub fn trim_pad(s: &[u8]) -> &[u8] {
    let mut end = s.len();
    while end > 0 && s[end - 1] == b' ' {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_space() {
        assert_eq!(compare_pad_space(b"a", b"a  "), Ordering::Equal);
        assert_eq!(compare_pad_space(b"a\t", b"a"), Ordering::Less);
        assert_eq!(compare_pad_space(b"a", b"a\t"), Ordering::Greater);
    }
}
