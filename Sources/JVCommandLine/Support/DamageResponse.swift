// SPDX-License-Identifier: Apache-2.0
/// What a command does with a vault whose row-set manifest is missing or does not authenticate,
/// or whose tables hold other numbers of rows than it lists (records deleted or put back).
enum DamageResponse {
    /// Refuses it: a listing could hide what was removed, and a write would build on it.
    case refuse
    /// Goes on, with a warning: an export or a backup is how what is left is rescued, and
    /// refusing it would lose what restoring an older backup cannot give back.
    case warn
    /// Says nothing: `jv check` reports it in full.
    case report
}
