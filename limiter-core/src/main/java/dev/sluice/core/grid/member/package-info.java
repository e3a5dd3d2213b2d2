/**
 * What runs on a grid member: the entry processors that decide on the partition owning a key, their
 * backups, the sweep of idle states, the member's local copy of the rules and its stats.
 *
 * <p>Start here: {@link dev.sluice.core.grid.member.DecideProcessor} is one decision on the owner,
 * {@link dev.sluice.core.grid.member.Decider} what it needs that only the owner has, {@link
 * dev.sluice.core.grid.member.MemberContext} what a member knows locally (clock, rules copy).
 * {@link dev.sluice.core.grid.member.StateSweeper} keeps the state map bounded by the active keys;
 * {@link dev.sluice.core.grid.member.MostConsumedMergePolicy} heals it after a split brain.
 */
@NullMarked
package dev.sluice.core.grid.member;

import org.jspecify.annotations.NullMarked;
