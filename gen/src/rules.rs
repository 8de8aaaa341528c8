//! The validation rules (placeholder until the schema translation lands).
use super::Sources;
pub fn generate(_s: &Sources) -> Result<Vec<(String, String)>, String> {
    Ok(Vec::new())
}
