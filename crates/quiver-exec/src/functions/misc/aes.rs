//! AES_ENCRYPT(str, key) and AES_DECRYPT(crypt, key) as MariaDB 10.11 does
//! them: AES-128-ECB with PKCS#7 padding, the key folded into 16 bytes by
//! XOR (MariaDB's `Item_aes_crypt::create_key`). MariaDB 10.11 takes no IV
//! or KDF argument (1582 for a third). Strings are taken as their UTF-8
//! bytes; the result is a binary string. A ciphertext that is empty, not
//! whole blocks, or badly padded decrypts to NULL, without a warning.

use std::ops::RangeInclusive;

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;
use arrow_array::{Array, BinaryArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result, ScalarValue};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::super::kernel::Arrays;
use super::super::string::{bytes_of, string_arg};

const BLOCK: usize = 16;

pub struct Aes {
    encrypt: bool,
}

pub static AES_ENCRYPT: Aes = Aes { encrypt: true };
pub static AES_DECRYPT: Aes = Aes { encrypt: false };

/// MariaDB's key folding: the key's bytes XORed in turn into 16 zero bytes.
fn fold_key(key: &[u8]) -> [u8; BLOCK] {
    let mut k = [0u8; BLOCK];
    for (i, b) in key.iter().enumerate() {
        k[i % BLOCK] ^= b;
    }
    k
}

fn cipher_of(key: &[u8]) -> Aes128 {
    Aes128::new(&GenericArray::from(fold_key(key)))
}

/// The ciphertext length of `n` plaintext bytes: PKCS#7 always pads.
fn encrypted_len(n: usize) -> usize {
    (n / BLOCK + 1) * BLOCK
}

/// Encrypts `plain` into `out` (of `encrypted_len(plain.len())` bytes).
fn encrypt_into(cipher: &Aes128, plain: &[u8], out: &mut [u8]) {
    let pad = (out.len() - plain.len()) as u8;
    out[..plain.len()].copy_from_slice(plain);
    out[plain.len()..].fill(pad);
    for block in out.chunks_exact_mut(BLOCK) {
        cipher.encrypt_block(GenericArray::from_mut_slice(block));
    }
}

/// Decrypts `crypt` into `out` (of its length); the plaintext's length, or
/// None for a length or padding MariaDB refuses.
fn decrypt_into(cipher: &Aes128, crypt: &[u8], out: &mut [u8]) -> Option<usize> {
    if crypt.is_empty() || !crypt.len().is_multiple_of(BLOCK) {
        return None;
    }
    out.copy_from_slice(crypt);
    for block in out.chunks_exact_mut(BLOCK) {
        cipher.decrypt_block(GenericArray::from_mut_slice(block));
    }
    let pad = *out.last()? as usize;
    if pad == 0 || pad > BLOCK || out[out.len() - pad..].iter().any(|&b| b as usize != pad) {
        return None;
    }
    Some(out.len() - pad)
}

/// The key of a constant key argument, prepared once per batch.
fn constant_key(arg: &ColumnarValue) -> Option<Option<Aes128>> {
    match arg {
        ColumnarValue::Scalar(ScalarValue::Null, _) => Some(None),
        ColumnarValue::Scalar(ScalarValue::Utf8(s), _) => Some(Some(cipher_of(s.as_bytes()))),
        ColumnarValue::Scalar(ScalarValue::Binary(b), _) => Some(Some(cipher_of(b))),
        _ => None,
    }
}

impl ScalarFunction for Aes {
    fn name(&self) -> &'static str {
        if self.encrypt {
            "aes_encrypt"
        } else {
            "aes_decrypt"
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=2
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name().to_uppercase();
        args.iter().map(|t| string_arg(&name, t)).collect()
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Binary))
    }

    /// MariaDB's `max_length` in bytes: a text argument's characters at
    /// utf8mb4's 4 bytes each; encryption pads to whole blocks.
    fn max_chars(&self, args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let per_char = if matches!(args[0].data_type, DataType::Binary | DataType::Null) {
            1
        } else {
            4
        };
        let bytes = if args[0].is_null() {
            0
        } else {
            chars[0]? * per_char
        };
        Some(if self.encrypt {
            encrypted_len(bytes as usize) as u64
        } else {
            bytes
        })
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let prepared = constant_key(&args[1]);
        let a = Arrays::new(args, call.rows)?;
        let data = bytes_of(a.arg(0)?)?;
        let keys = bytes_of(a.arg(1)?)?;
        let valid = |i: usize| {
            data.is_valid(i)
                && match &prepared {
                    Some(k) => k.is_some(),
                    None => keys.is_valid(i),
                }
        };
        // Sizes first: one output buffer, filled in place.
        let mut offsets = Vec::with_capacity(a.rows + 1);
        offsets.push(0i32);
        let mut total = 0usize;
        for i in 0..a.rows {
            if valid(i) {
                let n = data.value(i).len();
                total += if self.encrypt { encrypted_len(n) } else { n };
            }
            offsets.push(i32::try_from(total).map_err(|_| {
                quiver_common::QuiverError::internal("AES result over 2 GiB in one batch")
            })?);
        }
        let mut values = vec![0u8; total];
        let mut nulls = Vec::with_capacity(a.rows);
        let mut last_key: Option<(Vec<u8>, Aes128)> = None;
        let mut end = 0usize;
        for i in 0..a.rows {
            let start = end;
            if !valid(i) {
                nulls.push(false);
                offsets[i + 1] = start as i32;
                continue;
            }
            let cipher = match &prepared {
                Some(Some(c)) => c,
                _ => {
                    // A key column: prepare a key only when it changes.
                    let key = keys.value(i);
                    if last_key.as_ref().is_none_or(|(k, _)| k != key) {
                        last_key = Some((key.to_vec(), cipher_of(key)));
                    }
                    &last_key.as_ref().expect("set above").1
                }
            };
            let input = data.value(i);
            if self.encrypt {
                end = start + encrypted_len(input.len());
                encrypt_into(cipher, input, &mut values[start..end]);
                nulls.push(true);
            } else {
                let slot = &mut values[start..start + input.len()];
                match decrypt_into(cipher, input, slot) {
                    Some(n) => {
                        end = start + n;
                        nulls.push(true);
                    }
                    None => nulls.push(false),
                }
            }
            offsets[i + 1] = end as i32;
        }
        // Each row starts where the previous one ended (a decrypted row
        // is written over its ciphertext's slot): only the tail is unused.
        values.truncate(end);
        let nulls = NullBuffer::from(nulls);
        let nulls = (nulls.null_count() > 0).then_some(nulls);
        let out = BinaryArray::new(OffsetBuffer::new(offsets.into()), values.into(), nulls);
        a.finish(std::sync::Arc::new(out), call.data_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02X}")).collect()
    }

    /// MariaDB 10.11: HEX(AES_ENCRYPT('a','k')), with an empty key, and a
    /// key of 40 bytes (folded).
    #[test]
    fn matches_mariadb() {
        let enc = |p: &[u8], k: &[u8]| {
            let mut out = vec![0; encrypted_len(p.len())];
            encrypt_into(&cipher_of(k), p, &mut out);
            out
        };
        assert_eq!(hex(&enc(b"a", b"k")), "53E61674DBCC997DD27BD802A2EB9F22");
        assert_eq!(hex(&enc(b"a", b"")), "8E4A3D4BEB92D54C7E95F67D41DAED59");
        assert_eq!(hex(&enc(b"", b"k")), "932F1B1E9189536B938A6B67666D4031");
        assert_eq!(
            hex(&enc(b"a", &[b'k'; 40])),
            "41FE3AE3B4379724C669F20D7D7AA89A"
        );
        let c = enc(b"hello world, 20 bytes", b"key");
        let mut out = vec![0; c.len()];
        let n = decrypt_into(&cipher_of(b"key"), &c, &mut out).unwrap();
        assert_eq!(&out[..n], b"hello world, 20 bytes");
        assert_eq!(decrypt_into(&cipher_of(b"k"), b"abc", &mut [0; 3]), None);
    }
}
