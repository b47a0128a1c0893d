use super::*;
use crate::search::testing::position;

#[test]
fn the_selection_table_gives_what_the_formula_gives_above_it() {
    // The table must change no selection: every entry equals the
    // direct computation, for tunables other than the defaults too.
    let mut tunables = Tunables::default();
    for (cpuct, exponent) in [(1.5, 0.6), (0.7, 0.45)] {
        tunables.set("cpuct", cpuct).unwrap();
        tunables.set("widening_exponent", exponent).unwrap();
        let selection = Selection::new(&tunables);
        for visits in (0..3000).chain([65_535, 1 << 20]) {
            for start in [false, true] {
                let (allowed, scale) = selection.terms(visits, start);
                let (direct_allowed, direct_scale) = selection.compute(visits, start);
                assert_eq!(allowed, direct_allowed);
                assert_eq!(scale.to_bits(), direct_scale.to_bits());
            }
        }
        let (allowed, scale) = selection.terms(400, true);
        let expected = cpuct * (1.0 + 0.15 * 401f32.ln()) * 20.0;
        assert_eq!(allowed, (4.0 + 400f32.powf(exponent)).ceil() as u32);
        assert!(
            (scale - expected).abs() < 1e-4,
            "{scale} against {expected}"
        );
    }
}

/// Runs the bare tree (no root shortcuts) from `position` at turn 0,
/// with `history` (unsorted hashes of earlier positions) and the backup
/// rules; returns the tree and its root.
fn grow(position: Position, history: &[u64], backup: Backup, iterations: u32) -> (Tree, u32) {
    grow_in(
        Tree::with_megabytes(4),
        position,
        history,
        backup,
        iterations,
    )
}

/// [`grow`] in a given tree, stopping early when it wants a recycle.
fn grow_in(
    tree: Tree,
    position: Position,
    history: &[u64],
    backup: Backup,
    iterations: u32,
) -> (Tree, u32) {
    grow_tuned(
        tree,
        position,
        history,
        backup,
        iterations,
        Tunables::default(),
    )
}

/// [`grow_in`] with given tunables.
fn grow_tuned(
    tree: Tree,
    position: Position,
    history: &[u64],
    backup: Backup,
    iterations: u32,
    tunables: Tunables,
) -> (Tree, u32) {
    let mut history = history.to_vec();
    history.sort_unstable();
    let root = grow_bare(
        &tree,
        &Rules::STANDARD,
        &tunables,
        &position,
        &history,
        backup,
        u64::from(iterations),
    )
    .unwrap();
    (tree, root)
}

/// Every node the root reaches, with its key, visits, value sum and
/// proof, and whether the table finds it under its key.
fn reachable(tree: &Tree, root: u32) -> Vec<(u64, u32, i64, u8, bool)> {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![root];
    let mut nodes = Vec::new();
    while let Some(index) = stack.pop() {
        if !seen.insert(index) {
            continue;
        }
        let node = tree.node(index);
        let key = node.key.load(Ordering::Relaxed);
        nodes.push((
            key,
            node.visits.load(Ordering::Relaxed),
            node.value_sum.load(Ordering::Relaxed),
            node.proof.load(Ordering::Relaxed),
            tree.lookup(key) == Some(index),
        ));
        let (first, count, _) = node.children();
        for edge in first..first + count {
            let child = tree.edge(edge).child.load(Ordering::Relaxed);
            if child != 0 {
                assert!(
                    child as u64 <= tree.node_count(),
                    "child {child} out of range"
                );
                stack.push(child);
            }
        }
    }
    nodes.sort_unstable_by_key(|node| node.0);
    nodes
}

/// A middle game with many turns, whose tree fills fast.
fn busy_position() -> Position {
    position(
        &[
            ("g3b1", "y3", ""),
            ("r2g1", "", "r1y1g1b1b3"),
            ("b2", "", "g2b3"),
            ("g2", "", "g2g3"),
            ("y3", "", "y1g1g3"),
        ],
        1,
    )
}

#[test]
fn a_recycle_keeps_statistics_proofs_and_the_table_consistent() {
    // Two middle games grown in 1 MB until the tree wants a recycle.
    let busy = busy_position();
    let sacrifice = position(
        &[
            ("g3b1", "r1r2y1y2", ""),
            ("r1b2", "", "g3y1"),
            ("b3", "r2r3g3", "y3"),
            ("g2", "y1", ""),
            ("r2", "r1", "r3"),
        ],
        0,
    );
    let mut proofs = 0;
    let mut outside_proofs = 0;
    for root_position in [busy, sacrifice] {
        let (tree, root) = grow_in(
            Tree::with_megabytes(1),
            root_position,
            &[],
            Backup::neutral(),
            1_000_000,
        );
        assert_eq!(root, 1);
        assert!(tree.wants_recycle());
        // (A few nodes may be private, when the nearly full table had
        // no free entry within the probe limit.)
        // A proof from outside the tree (as the root's two-turn check
        // marks a refuted turn) below the least visited node of the
        // root's turn that has children.
        let root_turn = tree.node(root).turn.load(Ordering::Relaxed);
        let (first, count, _) = tree.node(root).children();
        let marked = (first..first + count)
            .map(|edge| tree.edge(edge).child.load(Ordering::Relaxed))
            .filter(|&child| {
                child != 0
                    && tree.node(child).turn.load(Ordering::Relaxed) == root_turn
                    && tree.node(child).children().1 > 0
            })
            .min_by_key(|&child| tree.node(child).visits.load(Ordering::Relaxed))
            .and_then(|node| {
                let (first, count, _) = tree.node(node).children();
                (first..first + count)
                    .map(|edge| tree.edge(edge).child.load(Ordering::Relaxed))
                    .find(|&child| {
                        child != 0 && tree.node(child).proof.load(Ordering::Relaxed) == UNPROVEN
                    })
            })
            .map(|grandchild| {
                let node = tree.node(grandchild);
                node.proof.store(PROVEN_WIN, Ordering::Relaxed);
                node.key.load(Ordering::Relaxed)
            });
        let before = reachable(&tree, root);
        proofs += before.iter().filter(|node| node.3 != UNPROVEN).count();
        let recycled = tree.recycle(root, false).expect("the root is node 1");
        assert!(recycled.nodes_after < recycled.nodes_before);
        assert!(recycled.nodes_after <= tree.node_capacity() * 6 / 10);
        assert!(!tree.wants_recycle());
        let after = reachable(&tree, root);
        // Every survivor was in the tree, with the same statistics and
        // proof, and the rebuilt table finds it.
        assert!(after.len() < before.len());
        for node in &after {
            assert!(
                tree.lookup(node.0).is_some(),
                "{:x} not in the table",
                node.0
            );
            let same_key = before.iter().filter(|old| old.0 == node.0);
            assert!(
                same_key
                    .clone()
                    .any(|old| (old.1, old.2, old.3) == (node.1, node.2, node.3)),
                "{node:?} against {:?}",
                same_key.collect::<Vec<_>>()
            );
        }
        assert_eq!(after.len() as u64, tree.node_count());
        if let Some(key) = marked {
            let node = tree.lookup(key).map(|index| tree.node(index));
            let proof = node.map(|node| node.proof.load(Ordering::Relaxed));
            assert_eq!(proof, Some(PROVEN_WIN), "the marked proof was dropped");
            outside_proofs += 1;
        }
        // The search goes on in the recycled tree, from the same root.
        let visits = tree.node(root).visits.load(Ordering::Relaxed);
        let (tree, root) = grow_in(tree, root_position, &[], Backup::neutral(), 500);
        assert_eq!(root, 1);
        assert_eq!(tree.node(root).visits.load(Ordering::Relaxed), visits + 500);
    }
    assert!(proofs > 0, "no proven node to keep");
    assert!(outside_proofs > 0, "no proof marked from outside");
}

#[test]
fn the_table_grows_with_the_tree_and_still_finds_every_node() {
    // A tree starts with a small table (a fresh process would otherwise
    // commit all of it at once) and uses more of it as it grows.
    let tree = Tree::with_megabytes(40);
    let first = tree.table_entries();
    let (tree, root) = grow_in(tree, busy_position(), &[], Backup::neutral(), 30_000);
    let nodes = reachable(&tree, root);
    assert!(nodes.len() * 4 > first, "{} nodes", nodes.len());
    assert!(tree.table_entries() >= tree.allocated_nodes() * 4);
    assert!(
        nodes.iter().all(|node| node.4),
        "a node is not in the grown table"
    );
    // Between turns the compaction rebuilds it at that size.
    let mut tree = tree;
    let (first_edge, count, _) = tree.node(root).children();
    let next = (first_edge..first_edge + count)
        .map(|edge| tree.edge(edge).child.load(Ordering::Relaxed))
        .find(|&child| child != 0 && tree.node(child).children().1 > 0)
        .expect("an expanded child");
    assert_eq!(tree.compact(next, false), 1);
    assert!(reachable(&tree, 1).iter().all(|node| node.4));
}

#[test]
fn a_parallel_recycle_or_compaction_leaves_the_tree_a_serial_one_leaves() {
    // Large enough that every pass splits into several pieces. A wide
    // exploration keeps the tree from proving the root before it fills.
    let busy = busy_position();
    let mut wide = Tunables::default();
    wide.set("cpuct", 1.5).unwrap();
    wide.set("cpuct_intra_turn", 1.0).unwrap();
    let grown = || {
        grow_tuned(
            Tree::with_megabytes(40),
            busy,
            &[],
            Backup::neutral(),
            10_000_000,
            wide.clone(),
        )
    };
    let (serial, root) = grown();
    let (parallel, _) = grown();
    assert!(serial.wants_recycle());
    assert!(serial.allocated_nodes() > 3 * PASS_PIECE);
    let before = reachable(&serial, root);
    assert_eq!(before, reachable(&parallel, root));
    let serial_recycled = serial.recycle(root, false).unwrap();
    let parallel_recycled = parallel.recycle(root, true).unwrap();
    assert_eq!(serial_recycled, parallel_recycled);
    assert!(serial_recycled.nodes_after * 2 < serial_recycled.nodes_before);
    let after = reachable(&serial, root);
    assert_eq!(after, reachable(&parallel, root));
    assert!(
        after.iter().all(|node| node.4),
        "a survivor is not in the table"
    );
    for index in 1..serial.allocated_edges() as u32 {
        let (one, other) = (serial.edge(index), parallel.edge(index));
        assert_eq!(
            (
                one.action.load(Ordering::Relaxed),
                one.child.load(Ordering::Relaxed)
            ),
            (
                other.action.load(Ordering::Relaxed),
                other.child.load(Ordering::Relaxed)
            )
        );
    }
    // Both grow on alike.
    let (serial, _) = grow_in(serial, busy, &[], Backup::neutral(), 2_000);
    let (mut parallel, _) = grow_in(parallel, busy, &[], Backup::neutral(), 2_000);
    assert_eq!(reachable(&serial, root), reachable(&parallel, root));
    // And so does a compaction around another node, as between turns.
    let (first, count, _) = serial.node(root).children();
    let next = (first..first + count)
        .map(|edge| serial.edge(edge).child.load(Ordering::Relaxed))
        .find(|&child| child != 0 && serial.node(child).children().1 > 0)
        .expect("an expanded child");
    let mut serial = serial;
    assert!(serial.allocated_nodes() > PASS_PIECE);
    assert_eq!(serial.compact(next, false), parallel.compact(next, true));
    let after = reachable(&serial, 1);
    assert!(after.len() > 1 && after.iter().all(|node| node.4));
    assert_eq!(after, reachable(&parallel, 1));
    assert_eq!(serial.allocated_edges(), parallel.allocated_edges());
}

#[test]
fn a_sampled_histogram_picks_about_the_threshold_of_the_whole_tree() {
    // A recycle in a large tree counts every few nodes only; the
    // threshold must still free about what counting all would.
    let busy = busy_position();
    let (tree, _) = grow_in(
        Tree::with_megabytes(8),
        busy,
        &[],
        Backup::neutral(),
        1_000_000,
    );
    assert!(tree.wants_recycle());
    let (nodes, edges) = (tree.allocated_nodes(), tree.allocated_edges());
    let exact = tree.recycle_threshold_sampled(nodes, edges, 1);
    let kept = |threshold: u32| {
        (1..nodes as u32)
            .filter(|&index| tree.node(index).visits.load(Ordering::Relaxed) >= threshold)
            .map(|index| tree.node(index).children().1 as u64)
            .sum::<u64>()
    };
    assert!(exact > 2, "a threshold of {exact} says little");
    for stride in [3, 7, 15] {
        let sampled = tree.recycle_threshold_sampled(nodes, edges, stride);
        let (exact_kept, sampled_kept) = (kept(exact), kept(sampled));
        assert!(
            sampled_kept * 4 >= exact_kept * 3 && sampled_kept * 3 <= exact_kept * 4,
            "one node in {stride}: threshold {sampled} keeps {sampled_kept} edges, \
             all nodes: {exact} keeps {exact_kept}"
        );
    }
}

/// Runs the bare tree with plain backups and returns the root's proof
/// and mean value for the side to move.
fn bare_tree(position: Position, iterations: u32) -> (u8, f32) {
    bare_tree_with(position, Backup::neutral(), iterations)
}

/// [`bare_tree`] with the given backup rules.
fn bare_tree_with(position: Position, backup: Backup, iterations: u32) -> (u8, f32) {
    let (tree, root) = grow(position, &[], backup, iterations);
    let node = tree.node(root);
    (node.proof.load(Ordering::Relaxed), node.mean().unwrap())
}

#[test]
fn a_winning_root_backs_up_plus_one() {
    // `r1b3:r3g3:/y2b1:g2:g1 0`: a red sacrifice then a capture wins: two
    // actions deep in the tree, with values passed up unchanged inside
    // the turn.
    let position = position(&[("r1b3", "r3g3", ""), ("y2b1", "g2", "g1")], 0);
    let (proof, value) = bare_tree(position, 400);
    assert_eq!(proof, PROVEN_WIN);
    assert!(value > 0.5, "value {value}");
}

#[test]
fn a_lost_root_backs_up_minus_one() {
    // `r2b1:y1:r3/y3::y2g2 0`: every turn lets player 1's r3 capture
    // player 0's last home ship: values cross the end of the turn with
    // their sign flipped.
    let position = position(&[("r2b1", "y1", "r3"), ("y3", "", "y2g2")], 0);
    let (proof, value) = bare_tree(position, 400);
    assert_eq!(proof, PROVEN_LOSS);
    assert!(value < -0.5, "value {value}");
}

#[test]
fn draw_contempt_counts_against_the_side_ahead() {
    let mut tunables = Tunables::default();
    tunables.set("draw_contempt", 0.5).unwrap();
    tunables.set("contempt", 0.0).unwrap();
    // Root mover 1, who is ahead: a draw is bad for it, good for 0.
    let ahead = Backup::new(&tunables, 1, 0.8);
    assert!((ahead.draw_for(1) + 0.4).abs() < 1e-6);
    assert!((ahead.draw_for(0) - 0.4).abs() < 1e-6);
    assert!((ahead.proof_value(PROVEN_DRAW, 1) + 0.4).abs() < 1e-6);
    assert_eq!(ahead.proof_value(PROVEN_WIN, 1), 1.0);
    // Behind, a draw is worth no more than usual.
    let behind = Backup::new(&tunables, 0, -0.6);
    assert_eq!(behind.draw_for(0), 0.0);
    assert_eq!(behind.draw_for(1), 0.0);
    tunables.set("draw_contempt", 0.0).unwrap();
    assert_eq!(Backup::new(&tunables, 0, 0.9).draw_for(0), 0.0);
    // With contempt, a draw is worth less than nothing to the root
    // mover whatever the root's value, and more when it is ahead.
    tunables.set("contempt", 0.1).unwrap();
    tunables.set("draw_contempt", 0.5).unwrap();
    let behind = Backup::new(&tunables, 0, -0.6);
    assert!((behind.draw_for(0) + 0.1).abs() < 1e-6);
    assert!((behind.draw_for(1) - 0.1).abs() < 1e-6);
    let ahead = Backup::new(&tunables, 0, 0.8);
    assert!((ahead.draw_for(0) + 0.5).abs() < 1e-6);
}

#[test]
fn far_ahead_values_are_stretched_from_the_root_level_and_read_back() {
    let mut tunables = Tunables::default();
    // Off at 1: nothing moves.
    tunables.set("stretch_above", 1.0).unwrap();
    let plain = Backup::new(&tunables, 0, 0.96);
    assert_eq!(plain.stretched(0.9, 0), 0.9);
    // On at 0.6, the default.
    tunables.set("stretch_above", 0.6).unwrap();
    assert_eq!(Tunables::default().get("stretch_above"), Some(0.6));
    // A root at the level or below it: nothing moves.
    assert_eq!(Backup::new(&tunables, 0, 0.5).stretched(0.9, 0), 0.9);
    let ahead = Backup::new(&tunables, 0, 0.96);
    // The root's own level maps to 0.6 for the root mover, -0.6 for the other.
    assert!((ahead.stretched(0.96, 0) - 0.6).abs() < 1e-4);
    assert!((ahead.stretched(-0.96, 1) + 0.6).abs() < 1e-4);
    // A ship's worth between two far-ahead leaves becomes a real gap.
    let (better, worse) = (ahead.stretched(0.97, 0), ahead.stretched(0.96, 0));
    assert!(better - worse > 0.05, "{better} {worse}");
    // Wins and losses stay where they are, and the reports read values back.
    assert_eq!(ahead.stretched(1.0, 0), 1.0);
    assert_eq!(ahead.stretched(-1.0, 1), -1.0);
    for value in [-0.9, -0.2, 0.3, 0.95] {
        let back = ahead.unstretched(ahead.stretched(value, 0), 0);
        assert!((back - value).abs() < 1e-3, "{value} {back}");
    }
    // Far behind, the stretch goes the other way.
    let behind = Backup::new(&tunables, 1, -0.96);
    assert!((behind.stretched(-0.96, 1) + 0.6).abs() < 1e-4);
}

#[test]
fn the_turn_discount_shrinks_distant_values() {
    let mut tunables = Tunables::default();
    tunables.set("turn_discount", 0.9).unwrap();
    let backup = Backup::new(&tunables, 0, 0.0);
    assert_eq!(backup.factor(0), 1.0);
    assert!((backup.factor(2) - 0.81).abs() < 1e-6);
    assert_eq!(Backup::neutral().factor(7), 1.0);
}

#[test]
fn a_side_ahead_scores_a_repetition_with_contempt_and_avoids_it() {
    // From a game against greedy: player 1 is far ahead, and moving G3
    // from Delos back to Kotok repeats the position after its previous
    // turn. Without contempt the repetition scores 0 and, with a high
    // prior, takes the most visits.
    let rules = Rules::STANDARD;
    let tunables = Tunables::default();
    let root = busy_position();
    let repeated = position(
        &[
            ("g3b1", "y3", ""),
            ("r2g1", "", "r1y1g1b1b3"),
            ("b2", "", "g2g3b3"),
            ("g2", "", "g2g3"),
            ("y3", "", "y1g1"),
        ],
        0,
    );
    let mut reachable = false;
    crate::rules::TurnEnumerator::default().for_each_turn(&root, &rules, |_, result, _| {
        reachable |= result.hash() == repeated.hash();
    });
    assert!(reachable, "the repetition is one turn away");
    let root_value = eval::value(&root, &tunables, false);
    assert!(root_value > 0.5, "player 1 is ahead: {root_value}");
    let backup = Backup::new(&tunables, 1, root_value);
    assert!(backup.draw_value < -0.2, "{backup:?}");
    let (tree, root_id) = grow(root, &[repeated.hash()], backup, 2_000);
    let node = tree
        .lookup(node_key(&repeated, 1))
        .map(|index| tree.node(index))
        .expect("the repetition was searched");
    // Its mean, for player 1, is the draw's value, not 0.
    let mean = -node.mean().unwrap();
    assert!((mean - backup.draw_value).abs() < 1e-3, "mean {mean}");
    let chosen = crate::search::extract::best_turn(
        &tree,
        &rules,
        &tunables,
        root_id,
        &root,
        crate::search::extract::Repeats::default(),
    )
    .expect("a turn");
    assert_ne!(
        chosen.result.hash(),
        repeated.hash(),
        "{:?}",
        chosen.actions
    );
    let visits = node.visits.load(Ordering::Relaxed);
    assert!(visits < 100, "the repetition took {visits} visits");
}

#[test]
fn a_proven_win_is_read_out_through_a_thinly_visited_sacrifice() {
    // From a game against greedy: sacrificing Y2 and moving two ships
    // into the enemy home wins by force, but the sacrifice node has fewer
    // visits than `extract_min_visits`: reading the turn must not cut it
    // short into "sacrifice, pass, pass".
    let rules = Rules::STANDARD;
    let tunables = Tunables::default();
    let root = position(
        &[
            ("g3b1", "r1r2y1y2b3", ""),
            ("r1b2", "", "g3"),
            ("b3", "r2r3r3g3", ""),
            ("g2", "y1y1", ""),
            ("r2", "r1r3", ""),
        ],
        0,
    );
    let (tree, root_id) = grow(root, &[], Backup::neutral(), 2_000);
    assert_eq!(tree.node(root_id).proof.load(Ordering::Relaxed), PROVEN_WIN);
    let chosen = crate::search::extract::best_turn(
        &tree,
        &rules,
        &tunables,
        root_id,
        &root,
        crate::search::extract::Repeats::default(),
    )
    .expect("a turn");
    assert_eq!(chosen.proof, PROVEN_WIN, "{:?}", chosen.actions);
    assert_eq!(chosen.actions.len(), 3, "{:?}", chosen.actions);
}
