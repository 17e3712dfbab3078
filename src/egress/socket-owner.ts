// Which process holds the other end of a loopback TCP connection, read from /proc (Linux). The
// egress proxy uses it to serve only its own Chromium: a local connection's peer socket is found in
// /proc/net/tcp{,6} by its ports and addresses, which gives its owner and inode, and the socket is
// ours if a process of one of our browsers has that inode among its open fds. Chromium's network
// service (the process that connects to the proxy) is a child of its browser process.
import { existsSync } from 'node:fs';
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

/** The socket at the client's end of `socket` (an accepted connection): its inode and owner, if still open. */
export async function peerSocket(socket: Socket): Promise<{ inode: string; uid: number } | undefined> {
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
      if (
        local.port === remotePort &&
        remote.port === localPort &&
        canonical(local.address) === peer &&
        canonical(remote.address) === us &&
        f[9] !== '0'
      )
        return { inode: f[9]!, uid: Number(f[7]) };
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

// Kernels built without CONFIG_PROC_CHILDREN have no children lists: every process is looked at.
const CHILDREN_LISTED = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

async function groupMembers(leaders: readonly number[]): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((e) => /^\d+$/.test(e)).map(Number);
  const lineages = await Promise.all(pids.map(lineage));
  return pids.filter((_, i) => leaders.includes(lineages[i]?.pgid ?? -1));
}

async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(
    tasks.map((t) => readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '')),
  );
  return lists.join(' ').split(/\s+/).filter(Boolean).map(Number);
}

/**
 * Every process of our browsers: the trees under the known browser pids and under any child of this
 * very process that leads its own process group — a browser still launching, whose pid is not known
 * yet (Playwright starts Chromium so; nothing else here does). Chromium's sandboxed processes live
 * in their own pid namespace but /proc shows them, and their parents, in ours.
 */
async function browserProcesses(leaders: readonly number[]): Promise<number[]> {
  if (!CHILDREN_LISTED) return groupMembers(leaders);
  const launching = [];
  for (const child of await childrenOf(process.pid)) {
    if ((await lineage(child))?.pgid === child) launching.push(child);
  }
  const seen = new Set<number>();
  let level = [...new Set([...leaders, ...launching])];
  while (level.length) {
    for (const pid of level) seen.add(pid);
    level = (await Promise.all(level.map(childrenOf))).flat().filter((pid) => !seen.has(pid));
  }
  return [...seen];
}

async function holdsInode(pid: number, link: string): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.includes(link);
}

// The process that held the last match (Chromium's network service, in practice). Trying it first
// makes the usual check one table read and one fd listing instead of a walk over the browser's tree.
let lastHolder: number | undefined;

/** True when a process of one of our browsers (see browserProcesses) holds the client end of `socket`. */
export async function heldByBrowsers(socket: Socket, leaders: readonly number[]): Promise<boolean> {
  const peer = await peerSocket(socket);
  // Our browsers run as our user: another user's socket is refused without looking further.
  if (!peer || peer.uid !== process.geteuid?.()) return false;
  const link = `socket:[${peer.inode}]`;
  const members = await browserProcesses(leaders);
  if (lastHolder && members.includes(lastHolder) && (await holdsInode(lastHolder, link))) return true;
  const holders = await Promise.all(members.map((pid) => holdsInode(pid, link)));
  const holder = members.find((_, i) => holders[i]);
  if (holder) lastHolder = holder;
  return holder !== undefined;
}
