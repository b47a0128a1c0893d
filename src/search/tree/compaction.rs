//! Compaction and recycling: the tree slid down in place so that it keeps
//! only what the root reaches (between turns), or only what is worth its
//! memory (during a search, when the arenas are nearly full).

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use super::*;

/// Compaction mark (in the virtual-loss word): the root reaches the node.
const MARKED: u32 = 1 << 30;
/// Compaction mark: the node keeps its children.
const KEEP_CHILDREN: u32 = 1 << 31;
/// The new node number in a marked virtual-loss word.
const NUMBER: u32 = MARKED - 1;
/// Fill of each arena a recycle aims to leave, in permille: half the memory
/// comes free, so a recycle's cost (one pass over the arenas) is spread over
/// as many new nodes as the tree keeps.
const RECYCLE_TARGET_PERMILLE: u64 = 500;
/// Nodes of the principal line (the most visited child from the root down)
/// that keep their children whatever their visits.
const PRINCIPAL_NODES: usize = 64;
/// Classes of visit counts for choosing a recycle's threshold: exact below
/// 32, then four a power of two.
const VISIT_CLASSES: usize = 140;

/// Nodes a recycle's histogram of visits looks at, at least: enough that
/// the threshold it picks frees about what it aims to (with `Hash` 256 and
/// 1.6 million nodes, seven recycles left the tree 378 to 415 per mille
/// full, against 377 to 408 when every node was counted).
const THRESHOLD_SAMPLE: usize = 1 << 18;

/// The class of a visit count (see [`VISIT_CLASSES`]).
fn visit_class(visits: u32) -> usize {
    if visits < 32 {
        visits as usize
    } else {
        let log = 31 - visits.leading_zeros() as usize;
        32 + (log - 5) * 4 + ((visits >> (log - 2)) & 3) as usize
    }
}

/// The smallest visit count in a class.
fn class_floor(class: usize) -> u32 {
    if class < 32 {
        class as u32
    } else {
        let log = 5 + (class - 32) / 4;
        (4 + ((class - 32) % 4) as u32) << (log - 2)
    }
}

/// What a recycle did, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Recycled {
    /// Nodes allocated before.
    pub nodes_before: u64,
    /// Nodes kept.
    pub nodes_after: u64,
    /// Edges allocated before.
    pub edges_before: u64,
    /// Edges kept.
    pub edges_after: u64,
    /// The fewest visits with which a node kept its children.
    pub threshold: u32,
}

impl Tree {
    /// Keeps only what `root` can reach, sliding the survivors to the front
    /// of both arenas and rebuilding the table; the root becomes node 1,
    /// which this returns. Used between turns so that tree reuse never leaks
    /// the branches that were not played. Needs exclusive access. With
    /// `parallel`, as in [`Tree::recycle`], the independent passes run on
    /// rayon's global pool (a search with several threads, whose cores are
    /// idle between turns).
    pub fn compact(&mut self, root: u32, parallel: bool) -> u32 {
        let node_count = self.allocated_nodes();
        let edge_count = self.allocated_edges();
        if root == 0 || root as usize >= node_count {
            self.clear();
            return 0;
        }
        self.clear_table(node_count, parallel);
        self.move_to_front(root, edge_count, parallel);
        let (nodes, _) = self.slide(node_count, edge_count, 0, 0, parallel);
        self.publish_all(nodes, parallel);
        1
    }

    /// Frees about half the arenas during a search, keeping the root (node
    /// 1), the principal line, the children of the root's turn's nodes that
    /// have a proven child, and the children of every node visited at
    /// least a threshold number of times, chosen from a histogram of visits
    /// so that about [`RECYCLE_TARGET_PERMILLE`] of each arena stays in use.
    /// A node that loses its children keeps its visits, value and proof, and
    /// is expanded again when next visited. Proof marks, the statistics of
    /// every kept node and edge, and the table (rebuilt) stay consistent.
    ///
    /// Returns `None`, doing nothing, if the root is not node 1.
    ///
    /// Contract: no other thread may use the tree during the call (the
    /// search's threads wait at a barrier, see `run.rs`) and no iteration is
    /// in flight, so every virtual loss is zero. It takes `&self` because
    /// the threads share the tree by reference; every write is an atomic
    /// store, so breaking the contract garbles the tree but is not undefined
    /// behaviour.
    ///
    /// With `parallel` the passes over independent nodes, edges or table
    /// entries run on rayon's global pool (the search's helpers wait
    /// meanwhile, so their cores are free): the same tree comes out, except
    /// that of two nodes with one key (rare: a node stays private when the
    /// table has no room for it) either may be the one the table finds.
    pub fn recycle(&self, root: u32, parallel: bool) -> Option<Recycled> {
        let node_count = self.allocated_nodes();
        let edge_count = self.allocated_edges();
        if root != 1 || node_count <= 1 {
            return None;
        }
        let threshold = self.recycle_threshold(node_count, edge_count);
        self.clear_table(node_count, parallel);
        let (nodes, edges) =
            self.slide(node_count, edge_count, threshold, PRINCIPAL_NODES, parallel);
        self.publish_all(nodes, parallel);
        Some(Recycled {
            nodes_before: node_count as u64 - 1,
            nodes_after: nodes as u64 - 1,
            edges_before: edge_count as u64 - 1,
            edges_after: edges as u64 - 1,
            threshold,
        })
    }

    /// The children block of a node, if it lies within the allocated edges.
    fn block(&self, node: &Node, edge_count: usize) -> Option<(u32, u32)> {
        let (first, count, _) = node.children();
        (count == 0 || (first >= 1 && first as usize + count as usize <= edge_count))
            .then_some((first, count))
    }

    /// The fewest visits a node needs to keep its children so that the
    /// children kept fill about [`RECYCLE_TARGET_PERMILLE`] of each arena.
    /// Nodes are counted by the children they hold, which overcounts nodes
    /// shared by transpositions: the recycle frees a little more, not less.
    ///
    /// In a large tree the histogram is taken over a sample of the nodes
    /// (about [`THRESHOLD_SAMPLE`] of them, every `stride`-th with an odd
    /// stride so that the sample does not follow the threads' allocation
    /// chunks), scaled up: the threshold only needs to free about half the
    /// tree, and counting every node's created children was the largest
    /// part of a recycle (38% of it at 1.6 million nodes), a pause during
    /// which every search thread waits.
    fn recycle_threshold(&self, node_count: usize, edge_count: usize) -> u32 {
        let stride = (node_count / THRESHOLD_SAMPLE) as u64 | 1;
        self.recycle_threshold_sampled(node_count, edge_count, stride)
    }

    /// [`Tree::recycle_threshold`] from every `stride`-th node (1: all).
    pub(crate) fn recycle_threshold_sampled(
        &self,
        node_count: usize,
        edge_count: usize,
        stride: u64,
    ) -> u32 {
        let mut classes = [(0u64, 0u64); VISIT_CLASSES];
        for index in (1..node_count as u32).step_by(stride as usize) {
            let node = self.node(index);
            let Some((first, count)) = self.block(node, edge_count) else {
                continue;
            };
            if count == 0 {
                continue;
            }
            let created = (first..first + count)
                .filter(|&edge| self.edge(edge).child.load(Ordering::Relaxed) != 0)
                .count() as u64;
            let class = &mut classes[visit_class(node.visits.load(Ordering::Relaxed))];
            class.0 += created * stride;
            class.1 += count as u64 * stride;
        }
        let node_target = self.node_capacity() * RECYCLE_TARGET_PERMILLE / 1000;
        let edge_target = (self.edges.len() as u64 - 1) * RECYCLE_TARGET_PERMILLE / 1000;
        let (mut nodes, mut edges) = (1u64, 0u64);
        let mut threshold = u32::MAX;
        for class in (0..VISIT_CLASSES).rev() {
            nodes += classes[class].0;
            edges += classes[class].1;
            if nodes > node_target || edges > edge_target {
                break;
            }
            threshold = class_floor(class);
        }
        threshold.max(1)
    }

    /// Makes `root` node 1 by exchanging it with node 1 and rewriting the
    /// child pointers to either. The table must be empty.
    fn move_to_front(&self, root: u32, edge_count: usize, parallel: bool) {
        if root == 1 {
            return;
        }
        self.node(1).swap(self.node(root));
        for_pieces(1, edge_count, parallel, |range| {
            for index in range {
                let child = &self.edge(index as u32).child;
                match child.load(Ordering::Relaxed) {
                    1 => child.store(root, Ordering::Relaxed),
                    old if old == root => child.store(1, Ordering::Relaxed),
                    _ => {}
                }
            }
        });
    }

    /// The sliding compaction behind [`Tree::compact`] and
    /// [`Tree::recycle`], from node 1 as the root: marks what the root
    /// reaches through nodes that keep their children (the root, the first
    /// `principal` nodes of the most visited line, and nodes with at least
    /// `threshold` visits; 0 keeps everything reachable), numbers the marked
    /// nodes in address order, slides the kept edge blocks and then the
    /// nodes down, and zeroes the rest. The table must be empty; the caller
    /// publishes the survivors. Returns one past the last node and edge.
    fn slide(
        &self,
        node_count: usize,
        edge_count: usize,
        threshold: u32,
        principal: usize,
        parallel: bool,
    ) -> (u32, u32) {
        for_pieces(1, node_count, parallel, |range| {
            for index in range {
                self.node(index as u32)
                    .virtual_loss
                    .store(0, Ordering::Relaxed);
            }
        });
        self.keep_principal_line(node_count, edge_count, principal);
        self.mark(node_count, edge_count, threshold);
        let next = self.number_marked(node_count, parallel);
        let next_edge = self.slide_edge_blocks(node_count, edge_count, parallel);
        self.slide_nodes(node_count, edge_count);
        for_pieces(next as usize, node_count, parallel, |range| {
            for index in range {
                self.node(index as u32).clear();
            }
        });
        for_pieces(next_edge as usize, edge_count, parallel, |range| {
            for index in range {
                self.edge(index as u32).clear();
            }
        });
        self.next_node.store(next, Ordering::Relaxed);
        self.next_edge.store(next_edge, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
        self.epoch.store(new_epoch(), Ordering::Relaxed);
        (next, next_edge)
    }

    /// Marks the first `principal` nodes of the most visited line from the
    /// root to keep their children, whatever their visits.
    fn keep_principal_line(&self, node_count: usize, edge_count: usize, principal: usize) {
        let mut line = 1u32;
        for _ in 0..principal {
            let node = self.node(line);
            node.virtual_loss.fetch_or(KEEP_CHILDREN, Ordering::Relaxed);
            let Some((first, count)) = self.block(node, edge_count) else {
                break;
            };
            let mut best = (0u32, 0u32);
            for edge in first..first + count {
                let edge = self.edge(edge);
                let child = edge.child.load(Ordering::Relaxed);
                let visits = edge.visits.load(Ordering::Relaxed);
                if child != 0 && (child as usize) < node_count && visits > best.1 {
                    best = (child, visits);
                }
            }
            let next = best.0;
            if next == 0 || self.node(next).virtual_loss.load(Ordering::Relaxed) != 0 {
                break;
            }
            line = next;
        }
    }

    /// Marks every node the root reaches through nodes that keep their
    /// children: those marked so already, those of `threshold` visits or
    /// more, and those of the root's turn with a proven child.
    fn mark(&self, node_count: usize, edge_count: usize, threshold: u32) {
        // Nodes of the root's own turn with a proven child keep
        // their children whatever their visits: the proof may come from
        // outside the tree (the root's two-turn check marks a refuted turn's
        // result), and the tree could not find it again.
        let root_turn = self.node(1).turn.load(Ordering::Relaxed);
        let mut stack = vec![1u32];
        self.node(1)
            .virtual_loss
            .fetch_or(MARKED | KEEP_CHILDREN, Ordering::Relaxed);
        while let Some(index) = stack.pop() {
            let node = self.node(index);
            let marks = node.virtual_loss.load(Ordering::Relaxed);
            let block = self.block(node, edge_count);
            let keep = marks & KEEP_CHILDREN != 0
                || node.visits.load(Ordering::Relaxed) >= threshold
                || (node.turn.load(Ordering::Relaxed) == root_turn
                    && self.has_proven_child(block, node_count));
            let Some((first, count)) = block.filter(|_| keep) else {
                node.virtual_loss
                    .store(marks & !KEEP_CHILDREN, Ordering::Relaxed);
                continue;
            };
            node.virtual_loss
                .store(marks | KEEP_CHILDREN, Ordering::Relaxed);
            for edge in first..first + count {
                let child = self.edge(edge).child.load(Ordering::Relaxed);
                if child != 0 && (child as usize) < node_count {
                    let marks = &self.node(child).virtual_loss;
                    if marks.load(Ordering::Relaxed) & MARKED == 0 {
                        marks.fetch_or(MARKED, Ordering::Relaxed);
                        stack.push(child);
                    }
                }
            }
        }
    }

    /// Numbers the marked nodes in address order, from 1, in their marks'
    /// words (unmarked ones get 0); returns one past the last number.
    fn number_marked(&self, node_count: usize, parallel: bool) -> u32 {
        // Count the marked nodes a piece at a time, then number each piece
        // from the sum of the counts before it.
        let pieces: Vec<usize> = (1..node_count).step_by(PASS_PIECE).collect();
        let marked = |first: usize| {
            let end = (first + PASS_PIECE).min(node_count);
            (first..end)
                .filter(|&index| {
                    self.node(index as u32).virtual_loss.load(Ordering::Relaxed) & MARKED != 0
                })
                .count() as u32
        };
        let counts: Vec<u32> = if parallel {
            pieces.par_iter().map(|&first| marked(first)).collect()
        } else {
            pieces.iter().map(|&first| marked(first)).collect()
        };
        let mut starts = Vec::with_capacity(counts.len());
        let mut next = 1u32;
        for count in counts {
            starts.push(next);
            next += count;
        }
        let number = |(first, start): (&usize, &u32)| {
            let mut next = *start;
            for index in *first..(*first + PASS_PIECE).min(node_count) {
                let marks = &self.node(index as u32).virtual_loss;
                let mark = marks.load(Ordering::Relaxed);
                if mark & MARKED != 0 {
                    marks.store(next | (mark & KEEP_CHILDREN), Ordering::Relaxed);
                    next += 1;
                } else {
                    marks.store(0, Ordering::Relaxed);
                }
            }
        };
        if parallel {
            pieces.par_iter().zip(&starts).for_each(number);
        } else {
            pieces.iter().zip(&starts).for_each(number);
        }
        next
    }

    /// Slides the kept edge blocks down in address order, pointing their
    /// edges at the children's new numbers; returns one past the last edge.
    fn slide_edge_blocks(&self, node_count: usize, edge_count: usize, parallel: bool) -> u32 {
        let mut next_edge = 1u32;
        {
            let mut blocks = self
                .blocks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            blocks.clear();
            for index in 1..node_count as u32 {
                let node = self.node(index);
                if node.virtual_loss.load(Ordering::Relaxed) & KEEP_CHILDREN == 0 {
                    continue;
                }
                if let Some((first, count)) = self.block(node, edge_count) {
                    if count > 0 {
                        blocks.push((first as u64) << 32 | index as u64);
                    }
                }
            }
            if parallel {
                blocks.par_sort_unstable();
            } else {
                blocks.sort_unstable();
            }
            for &entry in blocks.iter() {
                let (first, owner) = ((entry >> 32) as u32, entry as u32);
                let node = self.node(owner);
                let (_, count, total) = node.children();
                for offset in 0..count {
                    let from = self.edge(first + offset);
                    let action = from.action.load(Ordering::Relaxed);
                    let prior = from.prior.load(Ordering::Relaxed);
                    let child = from.child.load(Ordering::Relaxed);
                    let visits = from.visits.load(Ordering::Relaxed);
                    let child = if child != 0 && (child as usize) < node_count {
                        self.node(child).virtual_loss.load(Ordering::Relaxed) & NUMBER
                    } else {
                        0
                    };
                    let to = self.edge(next_edge + offset);
                    to.action.store(action, Ordering::Relaxed);
                    to.prior.store(prior, Ordering::Relaxed);
                    to.child.store(child, Ordering::Relaxed);
                    to.visits.store(visits, Ordering::Relaxed);
                }
                node.edges
                    .store(pack_children(next_edge, count, total), Ordering::Relaxed);
                next_edge += count;
            }
        }
        next_edge
    }

    /// Slides the numbered nodes down to their new numbers; a node that
    /// keeps no children becomes an unexpanded leaf with its own statistics.
    fn slide_nodes(&self, node_count: usize, edge_count: usize) {
        for old in 1..node_count as u32 {
            let from = self.node(old);
            let mark = from.virtual_loss.load(Ordering::Relaxed);
            if mark == 0 {
                continue;
            }
            let new = mark & NUMBER;
            let kept = mark & KEEP_CHILDREN != 0 && self.block(from, edge_count).is_some();
            if kept {
                // EXPANDING or WIDENING left over: expanded (or not yet).
                from.state.fetch_and(!1, Ordering::Relaxed);
                if from.state.load(Ordering::Relaxed) == UNEXPANDED && from.children().1 > 0 {
                    from.state.store(EXPANDED, Ordering::Relaxed);
                }
            } else {
                from.edges.store(0, Ordering::Relaxed);
                from.state.store(UNEXPANDED, Ordering::Relaxed);
            }
            if new != old {
                self.node(new).copy_from(from);
            } else {
                from.virtual_loss.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Whether a block of edges leads to a proven node.
    fn has_proven_child(&self, block: Option<(u32, u32)>, node_count: usize) -> bool {
        let Some((first, count)) = block else {
            return false;
        };
        (first..first + count).any(|edge| {
            let child = self.edge(edge).child.load(Ordering::Relaxed);
            child != 0
                && (child as usize) < node_count
                && self.node(child).proof.load(Ordering::Relaxed) != UNPROVEN
        })
    }
}
