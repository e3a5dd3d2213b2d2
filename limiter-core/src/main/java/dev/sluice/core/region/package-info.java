/**
 * Global limits across regions, the pure part: a region's budget for one key of a global rule
 * ({@link dev.sluice.core.region.RegionBudget}), permits the home grid's owner of the key admitted
 * to the region in advance. The grid side (the budget map, the link to home) is in {@code
 * dev.sluice.core.grid}; docs/multi-region.md is the user's page.
 *
 * <p>Start with {@link dev.sluice.core.region.RegionBudget}.
 */
@NullMarked
package dev.sluice.core.region;

import org.jspecify.annotations.NullMarked;
