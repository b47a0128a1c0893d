//! Reading the files a user names (records, positions, openings, value
//! networks) with a bound, so that no path can hang or exhaust the program.
//!
//! A name can point anywhere: at `/dev/zero` or `/dev/urandom`, which never
//! end, at a FIFO, whose open blocks until a writer comes (forever, for a
//! command loop that must answer `isready`), or at a folder. So the path's
//! type is checked before it is opened (opening a FIFO is what blocks) and
//! again on the handle (the name may have changed in between), and at most
//! the bound plus one byte is read, which tells a file that grew since the
//! check. Every such file is small: the bound is the caller's, a few times
//! the largest real one.

use std::io::Read;
use std::path::Path;

/// The largest list of positions or openings read (one HWPN a line): the
/// built-in ones are a few kilobytes.
pub const MAX_LIST_BYTES: u64 = 16 << 20;

/// Reads the regular file at `path`, of at most `limit` bytes, whole. `what`
/// names the file in the error ("a game record", "a network file").
///
/// # Errors
/// What the path is instead (a folder, device or pipe), why it cannot be
/// read, or how large it is, in bytes of the file itself.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let regular = |metadata: &std::fs::Metadata| -> Result<(), String> {
        if !metadata.is_file() {
            return Err(format!(
                "expected {what} in a regular file (this is a folder, device or pipe)"
            ));
        }
        if metadata.len() > limit {
            return Err(format!(
                "expected {what} of at most {limit} bytes, not {}",
                metadata.len()
            ));
        }
        Ok(())
    };
    let unreadable = |error: std::io::Error| format!("cannot read {what}: {error}");
    regular(&std::fs::metadata(path).map_err(unreadable)?)?;
    let file = std::fs::File::open(path).map_err(unreadable)?;
    regular(&file.metadata().map_err(unreadable)?)?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(format!("expected {what} of at most {limit} bytes"));
    }
    Ok(bytes)
}

/// [`read_bounded`] for a text file: the bytes must be UTF-8.
///
/// # Errors
/// As [`read_bounded`], or that the file is not UTF-8 text.
pub fn read_bounded_text(path: &Path, limit: u64, what: &str) -> Result<String, String> {
    String::from_utf8(read_bounded(path, limit, what)?)
        .map_err(|_| format!("expected {what} in UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_folders_and_large_files_are_refused_at_once() {
        let folder = std::env::temp_dir();
        let error = read_bounded(&folder, 10, "a list").unwrap_err();
        assert!(error.contains("regular file"), "{error}");
        let error = read_bounded(Path::new("/dev/zero"), 10, "a list").unwrap_err();
        assert!(error.contains("regular file"), "{error}");
        let path = folder.join(format!("supernova-files-{}", std::process::id()));
        std::fs::write(&path, [0xFF; 20]).unwrap();
        let error = read_bounded(&path, 10, "a list").unwrap_err();
        assert!(error.contains("at most 10 bytes, not 20"), "{error}");
        assert_eq!(read_bounded(&path, 20, "a list").unwrap().len(), 20);
        assert!(read_bounded_text(&path, 20, "a list")
            .unwrap_err()
            .contains("UTF-8"));
        std::fs::remove_file(&path).unwrap();
    }
}
