/**
 * How Sluice's types travel and are stored in a grid: the formats every member and client of one
 * build share.
 *
 * <p>Start here: {@link dev.sluice.core.grid.wire.WireFormat} (variable-length integers, policies,
 * commands and outcomes), {@link dev.sluice.core.grid.wire.StateValue} and {@link
 * dev.sluice.core.grid.wire.StateFormat} (a key's state in the state map), {@link
 * dev.sluice.core.grid.wire.RuleRecord} (a named rule with its version). {@link
 * dev.sluice.core.grid.wire.SluiceSerializationIds} and {@link dev.sluice.core.grid.wire.GridNames}
 * are the ids and names two builds must agree on.
 */
@NullMarked
package dev.sluice.core.grid.wire;

import org.jspecify.annotations.NullMarked;
