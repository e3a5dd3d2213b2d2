/**
 * Sluice on Hazelcast: limiter state in the partitioned map {@code sluice.state}, one entry
 * processor per decision on the member that owns the key.
 *
 * <p>Start here: {@link dev.sluice.core.grid.SluiceHazelcast} configures a member or client, {@link
 * dev.sluice.core.grid.Sluice#embedded} starts a member in your JVM, {@link
 * dev.sluice.core.grid.GridRateLimiter} is the limiter over any instance, {@link
 * dev.sluice.core.grid.GridBackend} its storage seen from the caller. What runs on the member that
 * owns a key is in {@code grid.member}, how it travels in {@code grid.wire}, how it is sent in
 * {@code grid.transport}; {@link dev.sluice.core.grid.RegionLink} connects a region's member to the
 * home grid of global rules. docs/grid.md has the design notes.
 */
@NullMarked
package dev.sluice.core.grid;

import org.jspecify.annotations.NullMarked;
