use super::*;
use crate::rules::Position;

#[test]
fn layout_is_compact() {
    assert_eq!(std::mem::size_of::<Node>(), 48);
    assert_eq!(std::mem::offset_of!(Node, state), 18);
    assert_eq!(std::mem::size_of::<Edge>(), 16);
}

#[test]
fn the_allocation_counters_share_no_cache_line_with_the_arrays() {
    // Every tree access reads the arrays' addresses; a counter that
    // threads write on the same 128 bytes would make those reads miss.
    let tree = Tree::with_megabytes(1);
    let block = |address: usize| address / 128;
    let reads = [
        std::ptr::addr_of!(tree.nodes) as usize,
        std::ptr::addr_of!(tree.edges) as usize,
        std::ptr::addr_of!(tree.table) as usize,
        std::ptr::addr_of!(tree.epoch) as usize,
    ];
    for counter in [
        std::ptr::addr_of!(tree.next_node) as usize,
        std::ptr::addr_of!(tree.next_edge) as usize,
    ] {
        assert_eq!(counter % 128, 0);
        for read in reads {
            assert_ne!(block(counter), block(read));
        }
    }
    assert_ne!(
        block(std::ptr::addr_of!(tree.next_node) as usize),
        block(std::ptr::addr_of!(tree.next_edge) as usize)
    );
}

#[test]
fn publish_and_lookup_share_nodes() {
    let tree = Tree::with_megabytes(1);
    let mut reserve = Reserve::default();
    let key = node_key(&Position::start(), 0);
    let node = tree.allocate_node(&mut reserve).unwrap();
    tree.node(node).key.store(key, Ordering::Relaxed);
    assert_eq!(tree.lookup(key), None);
    assert_eq!(tree.publish(key, node), node);
    assert_eq!(tree.lookup(key), Some(node));
    let other = tree.allocate_node(&mut reserve).unwrap();
    tree.node(other).key.store(key, Ordering::Relaxed);
    assert_eq!(tree.publish(key, other), node, "the first publisher wins");
}

#[test]
fn full_arena_refuses_gracefully() {
    let tree = Tree::with_megabytes(1);
    let mut reserve = Reserve::default();
    let mut count = 0;
    while tree.allocate_node(&mut reserve).is_some() {
        count += 1;
    }
    assert_eq!(count, tree.node_capacity());
    assert!(count > 1000);
    assert!(tree.is_full());
    assert_eq!(tree.allocate_edges(&mut reserve, 1), None);
}
