#!/usr/bin/env python3
"""Summarises an analysis log (benches/scripts/analysis.sh) at 0:10, 0:30, 1, 2, 5 and 10 minutes."""
import sys,re
rows=[]
for line in open(sys.argv[1]):
    if not line.startswith('info depth'): continue
    t=line.split()
    d={t[i]:t[i+1] for i in range(1,len(t)-1) if t[i] in('depth','seldepth','nodes','hashfull','time','nps','winprob')}
    sc=line.split('score ')[1].split()[:2]
    pv=line.split(' pv ')[1].split()
    rows.append((int(d['time']),d,' '.join(sc),pv))
marks=[10,30,60,120,300,600]
print("time  depth seldepth nodes      nps     hashfull score    best   pv-turns")
for m in marks:
    r=[x for x in rows if x[0]<=m*1000+600]
    if not r: continue
    t,d,sc,pv=r[-1]
    print(f"{t/1000:6.1f} {d['depth']:>4} {d['seldepth']:>5} {d['nodes']:>10} {d['nps']:>7} {d['hashfull']:>5}  {sc:10} {pv[0]:14} {len(pv)}")
# best turn changes
last=None
for t,d,sc,pv in rows:
    if pv[0]!=last:
        print("best ->",pv[0],"at",t/1000); last=pv[0]
hf=[int(x[1]['hashfull']) for x in rows]
drops=sum(1 for a,b in zip(hf,hf[1:]) if b<a-200)
print("hashfull drops (recycles seen):",drops, "max",max(hf))
