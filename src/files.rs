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

/// Why a named file was not read.
#[derive(Debug)]
pub enum FileError {
    /// A folder, device or pipe.
    NotRegular,
    /// Larger than the bound, by its size in bytes (`None` when it grew
    /// past the bound after the check).
    TooLarge {
        /// The bound.
        limit: u64,
        /// The file's size.
        size: Option<u64>,
    },
    /// The system's reason.
    Unreadable(std::io::Error),
    /// Not UTF-8 text.
    NotText,
}

impl FileError {
    /// What was wanted instead, for messages of the form "expected ...":
    /// `what` names the file ("a game record", "a network file").
    pub fn expected(&self, what: &str) -> String {
        match self {
            FileError::NotRegular => {
                format!("{what} in a regular file (this is a folder, device or pipe)")
            }
            FileError::TooLarge {
                limit,
                size: Some(size),
            } => format!("{what} of at most {limit} bytes, not {size}"),
            FileError::TooLarge { limit, size: None } => {
                format!("{what} of at most {limit} bytes")
            }
            FileError::Unreadable(error) => format!("{what} that can be read ({error})"),
            FileError::NotText => format!("{what} in UTF-8 text"),
        }
    }

    /// The message for a command's error: "cannot read" and the reason, or
    /// "expected" and what was wanted.
    pub fn message(&self, what: &str) -> String {
        match self {
            FileError::Unreadable(error) => format!("cannot read {what}: {error}"),
            _ => format!("expected {}", self.expected(what)),
        }
    }
}

/// Reads the regular file at `path`, of at most `limit` bytes, whole.
///
/// # Errors
/// What the path is instead (a folder, device or pipe), why it cannot be
/// read, or how large it is, in bytes of the file itself.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let regular = |metadata: &std::fs::Metadata| -> Result<(), FileError> {
        if !metadata.is_file() {
            return Err(FileError::NotRegular);
        }
        if metadata.len() > limit {
            return Err(FileError::TooLarge {
                limit,
                size: Some(metadata.len()),
            });
        }
        Ok(())
    };
    regular(&std::fs::metadata(path).map_err(FileError::Unreadable)?)?;
    let file = std::fs::File::open(path).map_err(FileError::Unreadable)?;
    regular(&file.metadata().map_err(FileError::Unreadable)?)?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(FileError::Unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge { limit, size: None });
    }
    Ok(bytes)
}

/// [`read_bounded`] for a text file: the bytes must be UTF-8.
///
/// # Errors
/// As [`read_bounded`], or that the file is not UTF-8 text.
pub fn read_bounded_text(path: &Path, limit: u64) -> Result<String, FileError> {
    String::from_utf8(read_bounded(path, limit)?).map_err(|_| FileError::NotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_folders_and_large_files_are_refused_at_once() {
        let folder = std::env::temp_dir();
        let error = read_bounded(&folder, 10).unwrap_err().message("a list");
        assert!(error.contains("regular file"), "{error}");
        let error = read_bounded(Path::new("/dev/zero"), 10)
            .unwrap_err()
            .message("a list");
        assert!(error.contains("regular file"), "{error}");
        let path = folder.join(format!("supernova-files-{}", std::process::id()));
        std::fs::write(&path, [0xFF; 20]).unwrap();
        let error = read_bounded(&path, 10).unwrap_err().message("a list");
        assert_eq!(error, "expected a list of at most 10 bytes, not 20");
        assert_eq!(read_bounded(&path, 20).unwrap().len(), 20);
        let error = read_bounded_text(&path, 20).unwrap_err().message("a list");
        assert_eq!(error, "expected a list in UTF-8 text");
        std::fs::remove_file(&path).unwrap();
    }
}
