// Which process holds the other end of a loopback TCP connection, read from /proc (Linux). The
// egress proxy uses it to serve only its own Chromium: a local connection's peer socket is found in
// /proc/net/tcp{,6} by its ports and addresses, which gives its inode, and the socket is ours if a
// process in one of our browsers' process groups has that inode among its open fds. Chromium's
// network service (the process that connects to the proxy) is in its browser's group.
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

const TCP_TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];

/** `0100007F:1F90` (little-endian words, as the kernel prints them) → { address: '127.0.0.1', port: 8080 }. */
export function decodeProcAddress(field: string): { address: string; port: number } {
  const [hex = '', portHex = ''] = field.split(':');
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const w = hex.slice(word, word + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(w.slice(b, b + 2), 16));
  }
  return { address: ipaddr.fromByteArray(bytes).toString(), port: parseInt(portHex, 16) };
}

/** One spelling per address: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) becomes plain IPv4. */
const canonical = (address: string) => ipaddr.process(address).toString();

/** The inode of the socket at the client's end of `socket` (an accepted connection), if it is still open. */
export async function peerSocketInode(socket: Socket): Promise<string | undefined> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return undefined;
  const peer = canonical(remoteAddress);
  const us = canonical(localAddress);
  for (const table of TCP_TABLES) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const local = decodeProcAddress(f[1]!);
      const remote = decodeProcAddress(f[2]!);
      // The client's socket: its local end is the client's address, its remote end is ours.
      if (local.port === remotePort && remote.port === localPort && canonical(local.address) === peer
        && canonical(remote.address) === us && f[9] !== '0') return f[9];
    }
  }
  return undefined;
}

/** Parent and process group of `pid`, from /proc/PID/stat. */
async function lineage(pid: number): Promise<{ ppid: number; pgid: number } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // comm is in parentheses and may hold spaces: the fields after it are state, ppid, pgrp.
  const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(ppid), pgid: Number(pgid) };
}

/**
 * Whether `pid` belongs to one of our browsers: its process group is led by a known browser, or —
 * for a browser still launching, whose pid is not known yet — by a child of this very process that
 * leads its own group (Playwright starts Chromium so; nothing else here does).
 */
async function inBrowserGroup(pid: number, leaders: readonly number[]): Promise<boolean> {
  const proc = await lineage(pid);
  if (!proc) return false;
  if (leaders.includes(proc.pgid)) return true;
  const leader = proc.pgid === pid ? proc : await lineage(proc.pgid);
  return leader?.ppid === process.pid;
}

async function holdsInode(pid: number, link: string): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.includes(link);
}

// The process that held the last match (Chromium's network service, in practice). Trying it first
// makes the usual check one table read and one fd listing instead of a walk over every process.
let lastHolder: number | undefined;

/** True when a process in one of the process groups led by `leaders` holds the client end of `socket`. */
export async function heldByProcessGroups(socket: Socket, leaders: readonly number[]): Promise<boolean> {
  const inode = await peerSocketInode(socket);
  if (!inode) return false;
  const link = `socket:[${inode}]`;
  const inGroup = (pid: number) => inBrowserGroup(pid, leaders);
  if (lastHolder && (await inGroup(lastHolder)) && (await holdsInode(lastHolder, link))) return true;
  const pids = (await readdir('/proc')).filter((e) => /^\d+$/.test(e)).map(Number);
  const groups = await Promise.all(pids.map(inGroup));
  const members = pids.filter((_, i) => groups[i]);
  const holders = await Promise.all(members.map((pid) => holdsInode(pid, link)));
  const holder = members.find((_, i) => holders[i]);
  if (holder) lastHolder = holder;
  return holder !== undefined;
}
