export function Card({ title, src }) {
  return (
    <div onClick={() => title}>
      <img src={src} />
      <a>{title}</a>
    </div>
  );
}
